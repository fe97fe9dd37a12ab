// Makes patches/@radix-ui+themes+*.patch (run it, then `npx patch-package @radix-ui/themes`):
// Radix Themes' ES modules import their primitives from the `radix-ui`
// umbrella package, whose namespace imports make every primitive reachable
// from any of them, so esbuild cannot leave one (the dropdown menu) for a
// later chunk. This rewrites each import to the primitive's own package, as
// the umbrella itself names it. Rerun it when upgrading @radix-ui/themes.
import { readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
const umbrella = readFileSync("node_modules/radix-ui/dist/index.mjs", "utf8");
const packages = Object.fromEntries(
  [...umbrella.matchAll(/import \* as (\w+) from "([^"]+)";/g)].map((m) => [m[1], m[2]]),
);
let files = 0;
function walk(dir) {
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) walk(path);
    else if (name.endsWith(".js")) {
      const source = readFileSync(path, "utf8");
      const next = source.replace(/import\{([^}]*)\}from"radix-ui";?/g, (_all, list) =>
        list
          .split(",")
          .map((spec) => {
            const [name, local] = spec.split(" as ");
            const pkg = packages[name.trim()];
            if (!pkg) throw new Error(`${path}: no package for ${name}`);
            return `import*as ${(local ?? name).trim()} from"${pkg}";`;
          })
          .join(""),
      );
      if (next !== source) {
        writeFileSync(path, next);
        files++;
      }
    }
  }
}
walk("node_modules/@radix-ui/themes/dist/esm");
console.log("rewrote", files, "files");
