// Writes app/styles/radix-dark-fallback.css: Radix Themes' dark rules again,
// inside `@media (prefers-color-scheme: dark)` and scoped to an <html> with
// neither `light` nor `dark` class. The server puts one of those classes on
// <html> whenever it knows the theme; when it cannot (preference "system" and
// no colour-scheme client hint: Firefox, Safari), the page is served without
// one, and this copy lets the CSS follow the OS before any script runs, or
// when none does. Radix scopes its dark tokens to class selectors only.
//
// Only the colour scales the app names are copied (a scale's name as a string
// literal in app/, or one of its variables in app/styles/): all 31 would add
// about 15 KB gzipped, these few about 3 KB.
//
// It also writes app/styles/radix.css, the stylesheet the app loads instead
// of Radix's styles.css: the same parts (tokens, components, utilities), as
// Radix documents for a custom import, with the colour tokens of those scales
// only. All 31 scales are 35 KB of the 88 KB gzipped, and the browser would
// parse them before its first paint.
//
// And app/styles/radix-components.css, which radix.css imports instead of
// Radix's components.css: the rules of the components the app imports only.
// A rule (one selector of it) is left out when it needs, outside any :is(),
// :where() or :not(), a component class (`.rt-Select`, `.rt-TabsList`…) that
// none of the app's Radix modules can render, so it could never match. All
// 60-odd components are 430 KB of CSS the browser parses before its first paint.
//
// `node scripts/build-dark-fallback.mjs` rewrites the files; `--check` fails
// when one is out of date (after a Radix upgrade, or when the app starts using
// another colour). They are committed, so the build needs no extra step.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { join, relative } from "node:path";
import postcss from "postcss";
import prettier from "prettier";

const ROOT = join(import.meta.dirname, "..");
const OUTPUT = join(ROOT, "app/styles/radix-dark-fallback.css");
const THEMES_OUTPUT = join(ROOT, "app/styles/radix.css");
const COMPONENTS_OUTPUT = join(ROOT, "app/styles/radix-components.css");
const require = createRequire(import.meta.url);
const RADIX_CSS = require.resolve("@radix-ui/themes/styles.css");
const RADIX_VERSION = JSON.parse(readFileSync(require.resolve("@radix-ui/themes/package.json"), "utf8")).version;

/** Matches where `html.dark` would (same specificity as `.dark`), when <html> has no theme class. */
const UNKNOWN_THEME_ROOT = ":root:where(:not(.light, .dark))";
/** A selector whose first compound is Radix's dark class on its own (`.dark X`, `:is(.dark, .dark-theme) X`). */
const DARK_LEAD = /^(?:\.dark-theme|\.dark|:is\(\s*\.dark\s*,\s*\.dark-theme\s*\))(?=$|[\s>+~])/;

function filesUnder(dir, extensions) {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return filesUnder(path, extensions);
    return extensions.some((ext) => name.endsWith(ext)) && ![OUTPUT, THEMES_OUTPUT, COMPONENTS_OUTPUT].includes(path)
      ? [path]
      : [];
  });
}

/** Radix's colour scales: every `--<name>-a1` its dark rules set. */
function scalesOf(radix) {
  const scales = new Set();
  radix.walkRules(/\.dark/, (rule) => rule.walkDecls(/^--[a-z]+-a1$/, (decl) => scales.add(decl.prop.slice(2, -3))));
  return scales;
}

/** The scales the app can show: named as a string (`color="red"`) or used as a variable (`var(--red-9)`). */
function scalesUsedByApp(scales, sources) {
  const used = new Set(["gray"]);
  for (const scale of scales) {
    const named = new RegExp(`["'\`]${scale}["'\`]|--${scale}-`);
    if (sources.some((source) => named.test(source))) used.add(scale);
  }
  return used;
}

/** The rule for the unknown case, or null when none of its selectors stands for "html is dark". */
function fallbackRule(rule, unusedScale) {
  const selectors = [
    ...new Set(
      rule.selectors
        .map((s) => s.trim())
        .flatMap((s) => (DARK_LEAD.test(s) ? [s.replace(DARK_LEAD, UNKNOWN_THEME_ROOT)] : [])),
    ),
  ];
  if (selectors.length === 0) return null;
  const copy = rule.clone({ selectors });
  copy.walkDecls((decl) => {
    const scale = /^--([a-z]+)-/.exec(decl.prop)?.[1];
    if (scale && unusedScale(scale)) decl.remove();
  });
  return copy.nodes.length > 0 ? copy : null;
}

async function buildDarkFallback(radix, scales, used) {
  const media = postcss.atRule({ name: "media", params: "(prefers-color-scheme: dark)" });
  radix.walkRules(/\.dark/, (rule) => {
    let node = fallbackRule(rule, (scale) => scales.has(scale) && !used.has(scale));
    if (!node) return;
    // Keep Radix's @supports / @media (color-gamut: p3) around it.
    for (let parent = rule.parent; parent && parent.type !== "root"; parent = parent.parent) {
      node = parent.clone({ nodes: [] }).append(node);
    }
    media.append(node);
  });
  const header =
    `/* Generated by scripts/build-dark-fallback.mjs from @radix-ui/themes ${RADIX_VERSION}` +
    ` (scales: ${[...used].sort().join(", ")}). Do not edit. */\n`;
  return prettier.format(header + media.toString(), { ...(await prettier.resolveConfig(OUTPUT)), filepath: OUTPUT });
}

/** A component's class: `rt-` and a capital (`rt-Button`, `rt-BaseMenuItem`); modifiers are lower case. */
const COMPONENT_CLASS = /\.?rt-[A-Z][A-Za-z]*/g;

/** Every component class the Radix modules the app imports (and theirs, transitively) can put in the page. */
function renderableClasses(sources) {
  const entries = new Set(
    sources.flatMap((s) => [...s.matchAll(/@radix-ui\/themes\/components\/([a-z-]+)/g)].map((m) => m[1])),
  );
  const pending = [...entries].map((name) => require.resolve(`@radix-ui/themes/components/${name}`));
  const seen = new Set();
  const classes = new Set();
  while (pending.length > 0) {
    const file = pending.pop();
    if (seen.has(file)) continue;
    seen.add(file);
    const code = readFileSync(file, "utf8");
    for (const [name] of code.matchAll(COMPONENT_CLASS)) classes.add(name);
    // Relative imports (ES modules) and requires (CommonJS), whichever build `require` resolved.
    for (const [, spec] of code.matchAll(/(?:from\s*|require\()["'](\.{1,2}\/[^"']+)["']/g))
      pending.push(join(file, "..", spec));
  }
  if (classes.size === 0) throw new Error("no Radix component classes found in the app's imports");
  return classes;
}

/** The component classes a selector needs as such: those outside any parenthesis (:is, :where, :not…). */
function requiredClasses(selector) {
  let depth = 0;
  let outside = "";
  for (const char of selector) {
    if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (depth === 0) outside += char;
  }
  return [...outside.matchAll(COMPONENT_CLASS)].map(([name]) => name.slice(1));
}

/** Radix's components.css without the rules no element of this app can match. */
async function buildComponents(sources) {
  const classes = renderableClasses(sources);
  const components = postcss.parse(readFileSync(require.resolve("@radix-ui/themes/components.css"), "utf8"));
  components.walkRules((rule) => {
    if (rule.parent?.type === "atrule" && /keyframes$/.test(rule.parent.name)) return;
    const selectors = rule.selectors.filter((s) => requiredClasses(s).every((name) => classes.has(name)));
    if (selectors.length === 0) rule.remove();
    else if (selectors.length < rule.selectors.length) rule.selectors = selectors;
  });
  // At-rules (@media, @supports) left empty go too.
  let emptied = true;
  while (emptied) {
    emptied = false;
    components.walkAtRules((atRule) => {
      if (atRule.nodes && atRule.nodes.length === 0) {
        atRule.remove();
        emptied = true;
      }
    });
  }
  const header =
    `/* Generated by scripts/build-dark-fallback.mjs: @radix-ui/themes ${RADIX_VERSION}'s components.css` +
    ` with the rules of the components the app uses only (${classes.size} classes). Do not edit. */\n`;
  return prettier.format(header + components.toString(), {
    ...(await prettier.resolveConfig(COMPONENTS_OUTPUT)),
    filepath: COMPONENTS_OUTPUT,
  });
}

/** Radix's styles.css in its documented parts, with the colour tokens of the used scales only. */
async function buildThemes(used) {
  const parts = [
    "tokens/base.css",
    ...[...used].sort().map((scale) => `tokens/colors/${scale}.css`),
    "components.css",
    "utilities.css",
  ];
  for (const part of parts) require.resolve(`@radix-ui/themes/${part}`); // fails on a renamed part
  const css =
    `/* Generated by scripts/build-dark-fallback.mjs: @radix-ui/themes ${RADIX_VERSION}'s styles.css` +
    ` with the colour scales the app names and the components it uses only. Do not edit. */\n` +
    parts
      .map((part) => (part === "components.css" ? "./radix-components.css" : `@radix-ui/themes/${part}`))
      .map((path) => `@import "${path}";\n`)
      .join("");
  return prettier.format(css, { ...(await prettier.resolveConfig(THEMES_OUTPUT)), filepath: THEMES_OUTPUT });
}

const radix = postcss.parse(readFileSync(RADIX_CSS, "utf8"));
const scales = scalesOf(radix);
// The app's own sources (the generated files left out), read once for both questions.
const appSources = filesUnder(join(ROOT, "app"), [".ts", ".tsx", ".css"]).map((f) => readFileSync(f, "utf8"));
const used = scalesUsedByApp(scales, appSources);
const outputs = [
  [OUTPUT, await buildDarkFallback(radix, scales, used)],
  [THEMES_OUTPUT, await buildThemes(used)],
  [COMPONENTS_OUTPUT, await buildComponents(appSources)],
];
let stale = false;
for (const [path, css] of outputs) {
  const name = relative(ROOT, path);
  if (process.argv.includes("--check")) {
    let current = "";
    try {
      current = readFileSync(path, "utf8");
    } catch {
      // missing: out of date
    }
    if (current !== css) {
      console.error(`${name} is out of date: run node scripts/build-dark-fallback.mjs`);
      stale = true;
    } else console.log(`${name} is up to date`);
  } else {
    writeFileSync(path, css);
    console.log(`wrote ${name} (${css.length} bytes)`);
  }
}
if (stale) process.exit(1);
