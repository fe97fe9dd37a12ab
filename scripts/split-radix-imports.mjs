// Makes patches/@radix-ui+themes+*.patch (on a fresh install: run it, then
// `npx patch-package @radix-ui/themes`). Radix Themes' ES modules import
// their primitives from the `radix-ui` umbrella package (and its `internal`
// entry), whose namespace imports make every primitive reachable from any of
// them, so esbuild cannot leave one (the dropdown menu) for a later chunk.
// This rewrites each import to the primitive's own package, as the umbrella
// itself names it. Rerun it when upgrading @radix-ui/themes.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

/** name → { pkg, namespace }: what an entry of the umbrella re-exports, read from its own imports. */
function exportsOf(file) {
  const source = readFileSync(file, "utf8");
  const names = {};
  for (const [, name, pkg] of source.matchAll(/import \* as (\w+) from "([^"]+)";/g))
    names[name] = { pkg, namespace: true };
  for (const [, list, pkg] of source.matchAll(/import \{([^}]*)\} from "([^"]+)";/g))
    for (const spec of list
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean)) {
      const [imported, local] = spec.split(/\s+as\s+/);
      names[local ?? imported] = { pkg, namespace: false, imported };
    }
  // `Primitive` is the base primitive with two helpers attached; Themes uses it only as `Primitive.div`.
  if (names.BasePrimitive) names.Primitive = { ...names.BasePrimitive, imported: "Primitive" };
  return names;
}

const entries = {
  "radix-ui": exportsOf("node_modules/radix-ui/dist/index.mjs"),
  "radix-ui/internal": exportsOf("node_modules/radix-ui/dist/internal.mjs"),
};

function rewrite(path, source) {
  return source.replace(/import\{([^}]*)\}from"(radix-ui(?:\/internal)?)";?/g, (_all, list, entry) =>
    list
      .split(",")
      .map((spec) => {
        const [name, local = name] = spec.split(" as ").map((s) => s.trim());
        const target = entries[entry][name];
        if (!target) throw new Error(`${path}: ${entry} has no ${name}`);
        return target.namespace
          ? `import*as ${local} from"${target.pkg}";`
          : `import{${target.imported} as ${local}}from"${target.pkg}";`;
      })
      .join(""),
  );
}

let files = 0;
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".js")) {
      const source = readFileSync(path, "utf8");
      const next = rewrite(path, source);
      if (next !== source) {
        writeFileSync(path, next);
        files++;
      }
    }
  }
}
walk("node_modules/@radix-ui/themes/dist/esm");

// `Theme` wraps every page in Radix's Tooltip.Provider (its only use of the
// tooltip package), which brings popper, floating-ui and the dismissable layer
// into the first load. This app shows no tooltip: the provider goes. (Add a
// Tooltip again, and it needs a Tooltip.Provider of its own around it.)
const theme = "node_modules/@radix-ui/themes/dist/esm/components/theme.js";
const themeSource = readFileSync(theme, "utf8");
const withProvider =
  /import\*as (\w+) from"@radix-ui\/react-tooltip";([\s\S]*)\b\w+\.createElement\(\1\.Provider,\{delayDuration:200\},(\w+\.createElement\(\w+\.Provider,\{dir:"ltr"\},\w+\.createElement\(\w+,\{\.\.\.\w+,ref:\w+\}\)\))\)/;
const match = withProvider.exec(themeSource);
if (match) {
  const [, tooltip, between, inner] = match;
  const next = themeSource.replace(withProvider, () => `${between}${inner}`);
  if (new RegExp(`\\b${tooltip}\\.`).test(next)) throw new Error(`${theme}: the tooltip is used elsewhere`);
  writeFileSync(theme, next);
  files++;
}
// `extractProps` runs for every Radix component a page renders (a members page
// renders hundreds), and per call it merged the component's prop definitions
// into a new object and copied each enum prop's values into a new array, only
// to look one value up: about a sixth of what the server allocates per page
// (docs/performance.md, "Memory"). The same lookups, without the copies: the
// merged definitions are kept per list of definition objects (Radix's are
// module constants), and a value is checked against the default and the list.
const extract = "node_modules/@radix-ui/themes/dist/esm/helpers/extract-props.js";
const extractSource = readFileSync(extract, "utf8");
const merge = /function (\w+)\(\.\.\.(\w+)\)\{return Object\.assign\(\{\},\.\.\.\2\)\}/;
const mergeCall = /=(\w+)\(\.\.\.(\w+)\);for\(const/;
const valueCheck = /\[(\w+)\.default,\.\.\.\1\.values\]\.includes\(([\w.]+)\)/g;
if (!extractSource.includes("mergedOnce")) {
  const mergeName = merge.exec(extractSource)?.[1];
  if (mergeCall.exec(extractSource)?.[1] !== mergeName) throw new Error(`${extract}: the merge is called differently`);
  const next = extractSource
    .replace(
      merge,
      (whole) =>
        `${whole}const mergedDefs=new WeakMap;function mergedOnce(defs){if(defs.length<2)return defs.length?defs[0]:{};let map=mergedDefs,node;for(const def of defs){node=map.get(def);if(!node)map.set(def,node={next:new WeakMap});map=node.next}return node.merged||(node.merged=${mergeName}(...defs))}`,
    )
    .replace(mergeCall, (_, __, args) => `=mergedOnce(${args});for(const`)
    .replace(valueCheck, (_, def, value) => `(${value}===${def}.default||${def}.values.includes(${value}))`);
  if (/\.\.\.\w+\.values\]/.test(next)) throw new Error(`${extract}: a values copy is left`);
  writeFileSync(extract, next);
  files++;
}
console.log(`rewrote ${files} files`);
