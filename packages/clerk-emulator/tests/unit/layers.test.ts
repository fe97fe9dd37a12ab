// The package's layers, one way down: state → domain → json → http → the APIs (frontend, backend, control,
// webhooks: peers that never import each other) → settings.ts → index.ts → hosts/. The order and why are in
// tests/support/layers.ts. ESLint holds the same per folder; this test also sees nested folders and import
// circles, and is seen to fail: tests/fixtures/layers/ holds a tree for each kind of violation.
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { importGraph, LAYERS, layerViolations, moduleImports } from "../support/layers";

const here = dirname(fileURLToPath(import.meta.url));
const SRC = resolve(here, "../../src");
const planted = (tree: string) => resolve(here, "../fixtures/layers", tree);

describe("the package's layers", () => {
  const graph = importGraph(SRC);

  it("reads the whole source tree, every file in a layer", () => {
    const files = [...graph.keys()];
    expect(files.length).toBeGreaterThan(90);
    expect(files).toEqual(expect.arrayContaining(["index.ts", "settings.ts", "hosts/cli.ts", "http/routing.ts"]));
    expect(files.map((file) => file.split("/")[0]!.replace(/\.ts$/, "")).filter((layer) => !(layer in LAYERS))).toEqual(
      [],
    );
  });

  it("has nothing to report in src/", () => {
    expect(layerViolations(SRC, graph)).toEqual([]);
  });
});

describe("the layer check, on planted violations in nested folders", () => {
  it("reports an import of a layer above", () => {
    expect(layerViolations(planted("upward"))).toEqual([
      { kind: "upward", from: "domain/users/lookup/find.ts", to: "http/kit/routes.ts" },
    ]);
  });

  it("reports a runtime import circle, and not one closed by `import type`", () => {
    expect(layerViolations(planted("circle"))).toEqual([
      { kind: "circle", files: ["domain/sessions/end/finish.ts", "domain/sessions/start/begin.ts"] },
    ]);
  });

  it("reports an import between the Frontend and Backend APIs", () => {
    expect(layerViolations(planted("across"))).toEqual([
      { kind: "across", from: "frontend/me/profile/read.ts", to: "backend/users/list.ts" },
    ]);
  });
});

describe("runtime imports", () => {
  it("are value imports, re-exports, side effects and import(); type-only imports are not", () => {
    const source = [
      `import type { A } from "./a";`,
      `import { type B } from "./b";`,
      `export type { C } from "./c";`,
      `type D = typeof import("./d");`,
      `import {\n  type E,\n  e,\n} from "./e";`,
      `import f, { type F } from "./f";`,
      `export { g } from "./g";`,
      `export * from "./h";`,
      `import "./i";`,
      `const j = () => import("./j");`,
      `import type { Request } from "express";`,
    ].join("\n");
    expect(moduleImports(source)).toEqual({
      runtime: ["./e", "./f", "./g", "./h", "./i", "./j"],
      usesExpress: true,
    });
  });
});
