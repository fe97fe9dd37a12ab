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
// It also writes Radix's tokens (base.css and the colour scales the app names,
// as its styles.css orders them) in two: app/styles/radix-tokens.css (the
// light theme, and everything not themed) and radix-tokens-dark.css (the
// rules that hold only in the dark theme), so a page painted light parses no
// dark token before its first paint (app/styles/first-paint-*.css put the
// parts together). All 31 scales are 35 KB of Radix's 88 KB gzipped; base.css
// also loses the accent and gray mappings of the scales not loaded.
//
// And app/styles/radix-components.css, instead of Radix's components.css: the
// rules of the components the app imports only; those that only the lazily
// loaded parts (`*.radix.tsx`) render go to radix-later.css, which comes after
// the first paint (after-paint.css).
// A rule (one selector of it) is left out when it needs, outside any :is(),
// :where() or :not(), a component class (`.rt-Select`, `.rt-TabsList`…) that
// none of the app's Radix modules can render, so it could never match. All
// 60-odd components are 430 KB of CSS the browser parses before its first paint.
//
// Radix Themes turns props into classes (`<Flex gap="3" direction={{ initial:
// "column", sm: "row" }}>` is `rt-r-gap-3 rt-r-fd-column sm:rt-r-fd-row`), and
// its utilities.css and components.css hold a rule for every value of every
// prop at every breakpoint: 252 KB and much of 184 KB of CSS, nearly all of
// which no element here can match. So app/styles/radix-utilities.css (instead
// of Radix's utilities.css) and radix-components.css keep only the prop classes
// the app can give. Which those are comes from Radix's own prop definitions
// (`className`, `values`, `default`) and its getResponsiveClassNames, applied
// to the props the app writes on its components, read with TypeScript's parser:
// a literal gives its class, a responsive object its classes at its
// breakpoints, any other value what its type allows (`"1" | "2"`), and a value
// whose type is not such a union every class the prop can give. The props
// Radix's parts give each other (a Dialog's title is a Heading with `mb="3"`)
// are read the same way from its modules. Kept whatever the app writes: every
// prop's default, and the bare classes (`rt-r-w`) an arbitrary value uses with
// a CSS variable, for the props someone writes. tests/e2e/page-sweep.spec.ts
// checks that every Radix rule an element of any page matches is loaded, in
// the first paint's sheet until a menu opens.
// Radix's part of a light page's one blocking stylesheet (`npm run build`):
// 405 KB raw, 43.4 KB gzip at first; 206 KB, 26.2 KB gzip in one file; now
// about 135 KB, 17 KB gzip (docs/performance.md).
//
// `node scripts/build-dark-fallback.mjs` rewrites the files; `--check` fails
// when one is out of date (after a Radix upgrade, or when the app starts using
// another colour, component or prop value). They are committed, so the build
// needs no extra step.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { getResponsiveClassNames } from "@radix-ui/themes/helpers";
import { breakpoints } from "@radix-ui/themes/props";
import postcss from "postcss";
import prettier from "prettier";
import ts from "typescript";

const ROOT = join(import.meta.dirname, "..");
const OUTPUT = join(ROOT, "app/styles/radix-dark-fallback.css");
const COMPONENTS_OUTPUT = join(ROOT, "app/styles/radix-components.css");
const UTILITIES_OUTPUT = join(ROOT, "app/styles/radix-utilities.css");
const TOKENS_LIGHT_OUTPUT = join(ROOT, "app/styles/radix-tokens.css");
const TOKENS_DARK_OUTPUT = join(ROOT, "app/styles/radix-tokens-dark.css");
const LATER_OUTPUT = join(ROOT, "app/styles/radix-later.css");
const GENERATED = [OUTPUT, TOKENS_LIGHT_OUTPUT, TOKENS_DARK_OUTPUT, COMPONENTS_OUTPUT, LATER_OUTPUT, UTILITIES_OUTPUT];
/**
 * The app's modules that are parts loaded after the page, on idle or first
 * use (`lazyPart`: the Radix menus, popover and dialog). What only they can
 * render is styled by radix-later.css, which does not hold up the first paint.
 */
const LATER_PART = /\.radix\.tsx$/;
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
    return extensions.some((ext) => name.endsWith(ext)) && !GENERATED.includes(path) ? [path] : [];
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

/**
 * The rule for the unknown case, or null when none of its selectors stands for
 * "html is dark" and can match an element of the app (`canMatchHere`).
 */
function fallbackRule(rule, unusedScale, canMatchHere) {
  const selectors = [
    ...new Set(
      rule.selectors
        .map((s) => s.trim())
        .flatMap((s) => (DARK_LEAD.test(s) && canMatchHere(s) ? [s.replace(DARK_LEAD, UNKNOWN_THEME_ROOT)] : [])),
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

async function buildDarkFallback(radix, scales, used, canMatchHere) {
  const media = postcss.atRule({ name: "media", params: "(prefers-color-scheme: dark)" });
  radix.walkRules(/\.dark/, (rule) => {
    let node = fallbackRule(rule, (scale) => scales.has(scale) && !used.has(scale), canMatchHere);
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

/** The code of every Radix module the app imports, and of theirs, transitively, by file. */
function radixModulesOf(sources) {
  // A type-only import (`import type * as DropdownMenu from …`) puts nothing in the page.
  const typeOnly = /import\s+type\s[^;]*?from\s*["'][^"']+["']/g;
  const entries = new Set(
    sources.flatMap((s) =>
      [...s.replace(typeOnly, "").matchAll(/@radix-ui\/themes\/components\/([a-z-]+)/g)].map((m) => m[1]),
    ),
  );
  const pending = [...entries].map((name) => require.resolve(`@radix-ui/themes/components/${name}`));
  const modules = new Map();
  while (pending.length > 0) {
    const file = pending.pop();
    if (modules.has(file)) continue;
    const code = readFileSync(file, "utf8");
    modules.set(file, code);
    // Relative imports (ES modules) and requires (CommonJS), whichever build `require` resolved.
    for (const [, spec] of code.matchAll(/(?:from\s*|require\()["'](\.{1,2}\/[^"']+)["']/g))
      pending.push(join(file, "..", spec));
  }
  return modules;
}

/** Every component class those modules can put in the page. */
function renderableClasses(radixModules) {
  const classes = new Set();
  for (const code of radixModules.values()) for (const [name] of code.matchAll(COMPONENT_CLASS)) classes.add(name);
  if (classes.size === 0) throw new Error("no Radix component classes found in the app's imports");
  return classes;
}

/** A selector without what is inside parentheses (:is, :where, :not…): what an element must have as such. */
function outsideParentheses(selector) {
  let depth = 0;
  let outside = "";
  for (const char of selector) {
    if (char === "(") depth++;
    else if (char === ")") depth--;
    else if (depth === 0) outside += char;
  }
  return outside;
}

/** The component classes a selector needs. */
function requiredClasses(selector) {
  return [...outsideParentheses(selector).matchAll(COMPONENT_CLASS)].map(([name]) => name.slice(1));
}

/**
 * Whether an element can match a selector, when `classOk` says which classes it
 * can have: each class it names must be, and of an `:is()` or `:where()` (Radix
 * puts its prop classes in one: `.rt-Text:where(.md\\:rt-r-size-1)`) one of the
 * selectors inside. What `:not()`, `:has()` and other pseudo-classes ask is not
 * checked: they are left as if they could match.
 */
function canMatch(selector, classOk) {
  let outside = "";
  for (let i = 0; i < selector.length; i++) {
    if (selector[i] === "\\") {
      outside += selector.slice(i, i + 2);
      i++;
    } else if (selector[i] === "(") {
      let depth = 1;
      let end = i + 1;
      for (; end < selector.length && depth > 0; end++) {
        if (selector[end] === "(") depth++;
        else if (selector[end] === ")") depth--;
      }
      const inside = selector.slice(i + 1, end - 1);
      if (/:(?:is|where)$/.test(outside) && !splitSelectorList(inside).some((s) => canMatch(s, classOk))) return false;
      i = end - 1;
    } else outside += selector[i];
  }
  return [...outside.matchAll(/\.((?:[\w-]|\\.)+)/g)].every(([, name]) => classOk(name.replace(/\\(.)/g, "$1")));
}

/** A selector list's selectors (`a, b:is(c, d)` is `a` and `b:is(c, d)`). */
function splitSelectorList(list) {
  const selectors = [""];
  let depth = 0;
  for (const char of list) {
    if (char === "(") depth++;
    else if (char === ")") depth--;
    if (char === "," && depth === 0) selectors.push("");
    else selectors[selectors.length - 1] += char;
  }
  return selectors.map((s) => s.trim());
}

// Props → classes. Radix Themes turns a prop into classes by its definition
// (`className: "rt-r-fd"`, `values`, `default`, `responsive`) with
// getResponsiveClassNames: `direction={{ initial: "column", sm: "row" }}` is
// `rt-r-fd-column sm:rt-r-fd-row`, and a value outside `values` (`width="20rem"`)
// is the bare `rt-r-w`, the value going in a CSS variable. The classes below
// come from those definitions and that function, never from a list of ours.

/** A value the build cannot know: a variable, a call, a spread. */
const UNKNOWN = Symbol("unknown");
/** A value outside any definition's `values`: what makes the bare class. */
const ARBITRARY = "\0arbitrary";

/** Radix's prop definitions that make a class from a value (booleans only add their class), by prop name. */
async function classPropDefs() {
  const esm = join(dirname(fileURLToPath(import.meta.resolve("@radix-ui/themes/props"))), "..");
  const files = filesUnder(esm, [".props.js", ".prop.js"]);
  if (files.length === 0) throw new Error(`no Radix prop definitions under ${esm}`);
  const byName = new Map();
  for (const file of files) {
    for (const defs of Object.values(await import(file))) {
      if (!defs || typeof defs !== "object" || Array.isArray(defs)) continue;
      for (const [name, def] of Object.entries(defs)) {
        if (!def?.className || !["enum", "enum | string", "string"].includes(def.type)) continue;
        byName.set(name, new Set([...(byName.get(name) ?? []), def]));
      }
    }
  }
  return byName;
}

/** The classes a value (a string, or a responsive object of them) gives, as Radix's runtime does. */
function classesOf(def, value) {
  const names = getResponsiveClassNames({
    allowArbitraryValues: def.type !== "enum",
    value,
    className: def.className,
    propValues: def.values ?? [],
    parseValue: def.parseValue,
  });
  return names ? names.split(" ").filter(Boolean) : [];
}

/** Every class a definition can give at these breakpoints. */
function everyClassOf(def, at = breakpoints) {
  const values = [...(def.values ?? []), ...(def.type === "enum" ? [] : [ARBITRARY])];
  return [...at].flatMap((breakpoint) => values.flatMap((value) => classesOf(def, { [breakpoint]: value })));
}

/**
 * What an expression can be: literals as themselves, a conditional or `??` as
 * both sides, an object literal as a responsive value whose entries are worked
 * out the same way, anything else what its type allows (`size: "2" | "3"`) if
 * that is literals (and `undefined`, the prop's default); otherwise UNKNOWN.
 */
function possibleValues(node, checker) {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) return [node.text];
  if (ts.isNumericLiteral(node)) return [Number(node.text)];
  if (
    ts.isParenthesizedExpression(node) ||
    ts.isAsExpression(node) ||
    ts.isSatisfiesExpression(node) ||
    ts.isNonNullExpression(node)
  )
    return possibleValues(node.expression, checker);
  if (ts.isConditionalExpression(node))
    return [...possibleValues(node.whenTrue, checker), ...possibleValues(node.whenFalse, checker)];
  if (
    ts.isBinaryExpression(node) &&
    [ts.SyntaxKind.QuestionQuestionToken, ts.SyntaxKind.BarBarToken, ts.SyntaxKind.AmpersandAmpersandToken].includes(
      node.operatorToken.kind,
    )
  )
    return [...possibleValues(node.left, checker), ...possibleValues(node.right, checker)];
  if (ts.isObjectLiteralExpression(node)) {
    const entries = [];
    for (const property of node.properties) {
      if (!ts.isPropertyAssignment(property) || !(ts.isIdentifier(property.name) || ts.isStringLiteral(property.name)))
        return [UNKNOWN]; // a spread, a computed key, a shorthand
      entries.push([property.name.text, possibleValues(property.initializer, checker)]);
    }
    return [{ entries }];
  }
  return checker ? typedValues(checker.getTypeAtLocation(node)) : [UNKNOWN];
}

/** The values a type allows, if it is a union of literals; `undefined` and `null` give no class of their own. */
function typedValues(type) {
  const values = [];
  for (const part of type.isUnion() ? type.types : [type]) {
    if (part.isStringLiteral() || part.isNumberLiteral()) values.push(part.value);
    else if (!(part.flags & (ts.TypeFlags.Undefined | ts.TypeFlags.Null | ts.TypeFlags.BooleanLiteral)))
      return [UNKNOWN];
  }
  return values;
}

/** The classes a prop set to one of `values` can give; an unknown one, any value at `unknownAt`. */
function classesOfValues(defs, values, unknownAt) {
  const classes = [];
  for (const def of defs) {
    for (const value of values) {
      if (value === UNKNOWN) classes.push(...everyClassOf(def, unknownAt));
      else if (!value?.entries) classes.push(...classesOf(def, value));
      else
        for (const [breakpoint, options] of value.entries)
          for (const option of options)
            classes.push(
              ...(option === UNKNOWN
                ? everyClassOf(def, breakpoints.includes(breakpoint) ? [breakpoint] : [])
                : classesOf(def, { [breakpoint]: option })),
            );
    }
  }
  return classes;
}

/** The app's TypeScript, type-checked as `tsc` would, for the types of props the build cannot read off. */
function appProgram() {
  const config = ts.getParsedCommandLineOfConfigFile(join(ROOT, "tsconfig.json"), {}, ts.sys);
  if (!config) throw new Error("tsconfig.json could not be read");
  const files = config.fileNames.filter((file) => relative(ROOT, file).startsWith("app/") && !GENERATED.includes(file));
  return ts.createProgram(files, config.options);
}

/** Whether a JSX tag is a component declared by Radix Themes. */
function isRadixComponent(tagName, checker) {
  let symbol = checker.getSymbolAtLocation(tagName);
  if (symbol && symbol.flags & ts.SymbolFlags.Alias) symbol = checker.getAliasedSymbol(symbol);
  return (symbol?.declarations ?? []).some((d) => d.getSourceFile().fileName.includes("/@radix-ui/themes/"));
}

/** Whether an expression is (part of) the props of the component it is in: a parameter, or a name bound in one. */
function isOwnProps(expression, checker) {
  if (!ts.isIdentifier(expression)) return false;
  const declaration = checker.getSymbolAtLocation(expression)?.valueDeclaration;
  for (let node = declaration; node; node = node.parent) {
    if (ts.isParameter(node)) return true;
    if (!ts.isBindingElement(node) && !ts.isObjectBindingPattern(node)) return false;
  }
  return false;
}

/**
 * Each `name={value}` (or spread property) the app writes on a component: a
 * capitalised tag, Radix's or one of ours that may pass its props on.
 */
function appProps(program) {
  const checker = program.getTypeChecker();
  const props = [];
  const visit = (node) => {
    if ((ts.isJsxOpeningElement(node) || ts.isJsxSelfClosingElement(node)) && /^[A-Z]|\./.test(node.tagName.getText()))
      for (const attribute of node.attributes.properties) {
        if (ts.isJsxSpreadAttribute(attribute)) {
          // `{...spread}` on a Radix component: each property its type has, as that property's type
          // allows; but a component's own props passed on are read where they are written.
          if (!isRadixComponent(node.tagName, checker) || isOwnProps(attribute.expression, checker)) continue;
          for (const property of checker.getTypeAtLocation(attribute.expression).getProperties())
            props.push([property.name, typedValues(checker.getTypeOfSymbolAtLocation(property, attribute))]);
          continue;
        }
        const { initializer } = attribute;
        const values = !initializer
          ? [true]
          : ts.isStringLiteral(initializer)
            ? [initializer.text]
            : initializer.expression
              ? possibleValues(initializer.expression, checker)
              : [UNKNOWN];
        props.push([attribute.name.getText(), values]);
      }
    ts.forEachChild(node, visit);
  };
  for (const file of program.getRootFileNames()) visit(program.getSourceFile(file));
  return props;
}

/**
 * Each `name: value` Radix's own code passes in an object to a call: the props
 * its parts give each other (`createElement(Heading, { size: "5", mb: "3" })`).
 */
function radixInternalProps(radixModules) {
  const props = [];
  for (const [path, code] of radixModules) {
    const file = ts.createSourceFile(path, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.JS);
    const visit = (node) => {
      if (ts.isCallExpression(node))
        for (const argument of node.arguments) {
          if (!ts.isObjectLiteralExpression(argument)) continue;
          for (const property of argument.properties)
            if (ts.isPropertyAssignment(property) && ts.isIdentifier(property.name))
              props.push([property.name.text, possibleValues(property.initializer)]);
        }
      ts.forEachChild(node, visit);
    };
    visit(file);
  }
  return props;
}

/** The breakpoints a prop's values name: a responsive object's keys, all of them for one the build cannot know. */
function breakpointsOf(values) {
  const named = new Set(["initial"]);
  for (const value of values) {
    if (value === UNKNOWN) return breakpoints;
    for (const [breakpoint] of value?.entries ?? []) if (breakpoints.includes(breakpoint)) named.add(breakpoint);
  }
  return named;
}

/**
 * The prop classes the app can put in the page (`used`), and every class a
 * prop definition can give (`known`): a rule that needs one of `known` that is
 * not `used` can never match.
 */
async function propClasses(appFiles, radixModules) {
  const defsByName = await classPropDefs();
  const allDefs = [...new Set([...defsByName.values()].flatMap((defs) => [...defs]))];
  const known = new Set(allDefs.flatMap((def) => everyClassOf(def)));
  const used = new Set();
  const add = (name, values, unknownAt) => {
    for (const className of classesOfValues(defsByName.get(name) ?? [], values, unknownAt)) used.add(className);
  };
  const app = appProps(appProgram());
  for (const [name, values] of app) add(name, values, breakpoints);
  // What Radix's parts pass each other and cannot be read off (`size: mapResponsiveProp(size, …)`,
  // a size from a context) is what the app gave the part under the same name, mapped value by
  // value: any value, at the breakpoints the app's own values of that prop name.
  const appBreakpoints = new Map();
  for (const [name, values] of app)
    appBreakpoints.set(name, new Set([...(appBreakpoints.get(name) ?? []), ...breakpointsOf(values)]));
  const internal = radixInternalProps(radixModules);
  for (const [name, values] of internal) add(name, values, appBreakpoints.get(name) ?? ["initial"]);
  // The props someone writes: only these can be given an arbitrary value.
  const written = new Set([...app, ...internal].map(([name]) => name));
  for (const def of allDefs) {
    // A prop left out, or set to a value outside its `values`, is its default.
    if (def.default !== undefined) for (const className of classesOf(def, def.default)) used.add(className);
  }
  for (const [name, defs] of defsByName) {
    if (!written.has(name)) continue;
    // The bare classes: an arbitrary value (`width="20rem"`) is one of these and a CSS variable.
    for (const def of defs)
      for (const className of everyClassOf(def)) if (className.endsWith(def.className)) used.add(className);
  }
  // A class written out in the app's own code (`className="rt-r-..."`), in case.
  const breakpointPrefix = [...breakpoints].filter((b) => b !== "initial").join("|");
  const writtenClass = new RegExp(`(?<![\\w:-])(?:(?:${breakpointPrefix}):)?-?rt-[\\w-]+`, "g");
  for (const [, source] of appFiles) for (const [name] of source.matchAll(writtenClass)) used.add(name);
  return { used, known };
}

/** `css` without the selectors `keep` refuses, and without the rules and at-rules that leaves empty. */
function pruned(css, keep) {
  const root = postcss.parse(css);
  root.walkRules((rule) => {
    if (rule.parent?.type === "atrule" && /keyframes$/.test(rule.parent.name)) return;
    const selectors = rule.selectors.filter(keep);
    if (selectors.length === 0) rule.remove();
    else if (selectors.length < rule.selectors.length) rule.selectors = selectors;
  });
  let emptied = true;
  while (emptied) {
    emptied = false;
    root.walkAtRules((atRule) => {
      if (atRule.nodes && atRule.nodes.length === 0) {
        atRule.remove();
        emptied = true;
      }
    });
  }
  return root;
}

/** A selector's prop classes can all be in the page. */
const propClassesMatch =
  ({ used, known }) =>
  (selector) =>
    canMatch(selector, (name) => !known.has(name) || used.has(name));

/**
 * Radix's components.css without the rules no element of this app can match
 * (`canMatchHere`): those of components it does not render, and the sizes,
 * variants and breakpoints of those it does that its props never ask for.
 * Split in two: the rules a page can need as it is first painted (the classes
 * of `firstPaint` only), and those of the components only the parts loaded
 * later render (a menu's content, a dialog), which radix-later.css holds.
 */
async function buildComponents(canMatchHere, firstPaint, renderable) {
  const source = readFileSync(require.resolve("@radix-ui/themes/components.css"), "utf8");
  const shownFirst = (selector) => requiredClasses(selector).every((name) => firstPaint.has(name));
  const format = async (path, what, css) =>
    prettier.format(
      `/* Generated by scripts/build-dark-fallback.mjs: @radix-ui/themes ${RADIX_VERSION}'s components.css` +
        ` with ${what} and the prop classes its markup can give only. Do not edit. */\n` +
        css.toString(),
      { ...(await prettier.resolveConfig(path)), filepath: path },
    );
  return [
    await format(
      COMPONENTS_OUTPUT,
      `the rules of the components a first paint can show (${firstPaint.size} classes)`,
      pruned(source, (selector) => canMatchHere(selector) && shownFirst(selector)),
    ),
    await format(
      LATER_OUTPUT,
      `the rules of the components only the parts loaded after the page render (${renderable.size - firstPaint.size} classes)`,
      pruned(source, (selector) => canMatchHere(selector) && !shownFirst(selector)),
    ),
  ];
}

/** A selector that holds only where the dark theme is on: `.dark` or `.dark-theme` outside any :not(). */
function isDarkSelector(selector) {
  return /\.dark(?:-theme)?(?![\w-])/.test(selector.replace(/:not\([^()]*\)/g, ""));
}

/**
 * Radix's tokens (base.css, then the colour scales the app names, as its
 * styles.css orders them) in two: the light theme with everything not
 * themed, and the rules that hold only in the dark theme. Light then dark
 * keeps the cascade of the whole: every light rule a dark one must beat
 * (the sRGB and Display P3 values alike) comes before it. base.css loses the
 * accent and gray mappings of the scales not loaded (`[data-accent-color='tomato']`
 * points at `--tomato-*` variables no stylesheet here defines): 26 of its 47 KB.
 */
async function buildTokens(scales, used) {
  const parts = ["tokens/base.css", ...[...used].sort().map((scale) => `tokens/colors/${scale}.css`)];
  const mapping = /\[data-(?:accent|gray)-color='([a-z]+)'\]/g;
  const loaded = (selector) =>
    [...selector.matchAll(mapping)].every(([, scale]) => !scales.has(scale) || used.has(scale));
  const source = parts.map((part) => readFileSync(require.resolve(`@radix-ui/themes/${part}`), "utf8")).join("\n");
  const light = pruned(source, (selector) => loaded(selector) && !isDarkSelector(selector));
  const dark = pruned(source, (selector) => loaded(selector) && isDarkSelector(selector));
  // Faces and animations are no theme's: the light file has them.
  dark.walkAtRules(/^(?:font-face|(?:-webkit-)?keyframes)$/, (atRule) => atRule.remove());
  const format = async (path, what, css) =>
    prettier.format(
      `/* Generated by scripts/build-dark-fallback.mjs: @radix-ui/themes ${RADIX_VERSION}'s ${parts.join(", ")}` +
        ` (the colour mappings of these scales only): ${what}. Do not edit. */\n` +
        css.toString(),
      { ...(await prettier.resolveConfig(path)), filepath: path },
    );
  return [
    await format(TOKENS_LIGHT_OUTPUT, "the light theme and the tokens of both", light),
    await format(TOKENS_DARK_OUTPUT, "the rules of the dark theme only; after the light file", dark),
  ];
}

/** Radix's utilities.css with the classes the app's props can give only. */
async function buildUtilities(propsMatch) {
  const css = pruned(readFileSync(require.resolve("@radix-ui/themes/utilities.css"), "utf8"), propsMatch);
  const header =
    `/* Generated by scripts/build-dark-fallback.mjs: @radix-ui/themes ${RADIX_VERSION}'s utilities.css` +
    ` with the classes the app's props can give only. Do not edit. */\n`;
  return prettier.format(header + css.toString(), {
    ...(await prettier.resolveConfig(UTILITIES_OUTPUT)),
    filepath: UTILITIES_OUTPUT,
  });
}

const radix = postcss.parse(readFileSync(RADIX_CSS, "utf8"));
const scales = scalesOf(radix);
// The app's own sources (the generated files left out), read once for every question.
const appFiles = filesUnder(join(ROOT, "app"), [".ts", ".tsx", ".css"]).map((f) => [f, readFileSync(f, "utf8")]);
const appSources = appFiles.map(([, source]) => source);
const used = scalesUsedByApp(scales, appSources);
const radixModules = radixModulesOf(appSources);
const firstPaintModules = radixModulesOf(
  appFiles.filter(([file]) => !LATER_PART.test(file)).map(([, source]) => source),
);
const propsMatch = propClassesMatch(await propClasses(appFiles, radixModules));
// A selector an element of the app can match: its components rendered, its prop classes given.
const renderable = renderableClasses(radixModules);
const canMatchHere = (selector) =>
  requiredClasses(selector).every((name) => renderable.has(name)) && propsMatch(selector);
const [components, later] = await buildComponents(canMatchHere, renderableClasses(firstPaintModules), renderable);
const [tokens, darkTokens] = await buildTokens(scales, used);
const outputs = [
  [OUTPUT, await buildDarkFallback(radix, scales, used, canMatchHere)],
  [TOKENS_LIGHT_OUTPUT, tokens],
  [TOKENS_DARK_OUTPUT, darkTokens],
  [COMPONENTS_OUTPUT, components],
  [LATER_OUTPUT, later],
  [UTILITIES_OUTPUT, await buildUtilities(propsMatch)],
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
