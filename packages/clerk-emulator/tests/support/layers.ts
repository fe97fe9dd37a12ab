// The package's layers, one way down, as a function of a source tree: `layerViolations(root)` reads every
// .ts file under root (nested folders too) with TypeScript's parser and returns what breaks the rules.
// tests/unit/layers.test.ts runs it on src/ (nothing to report) and on the planted trees in
// tests/fixtures/layers/ (each must be reported), so the check is seen to fail.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

/**
 * Each layer may import (at run time) only layers of a lower rank. The order is the one the code uses:
 * the HTTP kit (http/: the registrar, rate limits, the recorder…) is imported by the Frontend and Backend
 * APIs, the control API and settings.ts, and imports only domain/, so it sits below them all. The control
 * API (control/) and the webhook sender (webhooks/, which needs only json/) are imported by nobody but
 * index.ts: they are peers of the two Clerk APIs, and no two of those four import each other. Above them,
 * settings.ts (which reads http/'s rate-limit modes and proxy origins), then index.ts (which wires every
 * API), then hosts/ (the CLI and the standalone server, which build on index.ts and settings.ts).
 */
export const LAYERS: Readonly<Record<string, number>> = {
  state: 0,
  domain: 1,
  json: 2,
  http: 3,
  frontend: 4,
  backend: 4,
  control: 4,
  webhooks: 4,
  settings: 5,
  index: 6,
  hosts: 7,
};
/** Layers that share a rank never import each other (what two APIs share is domain). */
const PEERS = new Set(["frontend", "backend", "control", "webhooks"]);
/** Below the API layer nothing knows express, not even its types: take plain values from the handler. */
const NO_EXPRESS = new Set(["state", "domain", "json"]);

export type Violation =
  | { kind: "upward" | "across"; from: string; to: string }
  | { kind: "circle"; files: string[] }
  | { kind: "express"; from: string }
  | { kind: "unplaced"; from: string };

/** One module's imports: relative specifiers needed at run time, and whether it names express at all. */
export interface ModuleImports {
  runtime: string[];
  usesExpress: boolean;
}

const isTypeOnlyNamed = (elements: ts.NodeArray<ts.ImportSpecifier | ts.ExportSpecifier>) =>
  elements.length > 0 && elements.every((element) => element.isTypeOnly);

/**
 * The specifiers a module needs at run time. `import type`, `export type` and named imports whose every
 * name is `type` vanish when compiled, so they are not edges; side-effect imports, `export *` and
 * dynamic `import()` are.
 */
export function moduleImports(source: string, fileName = "module.ts"): ModuleImports {
  const file = ts.createSourceFile(fileName, source, ts.ScriptTarget.ES2022, false, ts.ScriptKind.TS);
  const runtime: string[] = [];
  let usesExpress = false;
  const visit = (node: ts.Node) => {
    let specifier: string | undefined;
    let typeOnly = false;
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      specifier = node.moduleSpecifier.text;
      const clause = node.importClause;
      const named = clause?.namedBindings;
      typeOnly =
        clause !== undefined &&
        (clause.isTypeOnly ||
          (clause.name === undefined &&
            named !== undefined &&
            ts.isNamedImports(named) &&
            isTypeOnlyNamed(named.elements)));
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      specifier = node.moduleSpecifier.text;
      const clause = node.exportClause;
      typeOnly =
        node.isTypeOnly || (clause !== undefined && ts.isNamedExports(clause) && isTypeOnlyNamed(clause.elements));
    } else if (
      ts.isImportEqualsDeclaration(node) &&
      ts.isExternalModuleReference(node.moduleReference) &&
      ts.isStringLiteral(node.moduleReference.expression)
    ) {
      specifier = node.moduleReference.expression.text;
      typeOnly = node.isTypeOnly;
    } else if (
      ts.isCallExpression(node) &&
      node.expression.kind === ts.SyntaxKind.ImportKeyword &&
      node.arguments[0] &&
      ts.isStringLiteralLike(node.arguments[0])
    ) {
      specifier = node.arguments[0].text;
    } else if (
      ts.isImportTypeNode(node) &&
      ts.isLiteralTypeNode(node.argument) &&
      ts.isStringLiteral(node.argument.literal)
    ) {
      specifier = node.argument.literal.text;
      typeOnly = true;
    }
    if (specifier === "express") usesExpress = true;
    if (specifier !== undefined && !typeOnly && specifier.startsWith(".")) runtime.push(specifier);
    ts.forEachChild(node, visit);
  };
  visit(file);
  return { runtime, usesExpress };
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [path] : [];
  });
}

/** A file's layer: its first folder under root, or (directly under root) its name without `.ts`. */
const layerOf = (name: string) => name.split("/")[0]!.replace(/\.ts$/, "");

/** Every .ts file under root (as a path relative to root, with `/`) and the local files it imports at run time. */
export function importGraph(root: string): Map<string, { imports: string[]; usesExpress: boolean }> {
  const files = sourceFiles(resolve(root));
  const known = new Set(files);
  const name = (file: string) => relative(resolve(root), file).split(sep).join("/");
  const graph = new Map<string, { imports: string[]; usesExpress: boolean }>();
  for (const file of files) {
    const { runtime, usesExpress } = moduleImports(readFileSync(file, "utf8"), file);
    const imports = runtime
      .map((specifier) => {
        const base = resolve(dirname(file), specifier.replace(/\.js$/, ""));
        return [`${base}.ts`, join(base, "index.ts"), base].find((candidate) => known.has(candidate));
      })
      .filter((target): target is string => target !== undefined)
      .map(name);
    graph.set(name(file), { imports, usesExpress });
  }
  return graph;
}

/** Each runtime import circle once, as the files around it (starting from its first file in sorted order). */
function circles(graph: Map<string, { imports: string[] }>): string[][] {
  const found: string[][] = [];
  const status = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    status.set(file, "open");
    path.push(file);
    for (const target of graph.get(file)?.imports ?? []) {
      if (status.get(target) === "open") found.push(path.slice(path.indexOf(target)));
      else if (!status.has(target)) visit(target);
    }
    path.pop();
    status.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!status.has(file)) visit(file);
  return found;
}

/** What breaks the layers in the tree at root (its graph read once, if the caller has it): nothing, for a tree that keeps them. */
export function layerViolations(root: string, graph = importGraph(root)): Violation[] {
  const violations: Violation[] = [];
  for (const [from, { imports, usesExpress }] of [...graph].sort(([a], [b]) => a.localeCompare(b))) {
    const layer = layerOf(from);
    if (!(layer in LAYERS)) {
      violations.push({ kind: "unplaced", from });
      continue;
    }
    for (const to of imports) {
      const target = layerOf(to);
      if (target === layer) continue;
      const [rank, targetRank] = [LAYERS[layer]!, LAYERS[target] ?? Infinity];
      if (targetRank > rank) violations.push({ kind: "upward", from, to });
      else if (targetRank === rank && PEERS.has(layer)) violations.push({ kind: "across", from, to });
    }
    if (NO_EXPRESS.has(layer) && usesExpress) violations.push({ kind: "express", from });
  }
  for (const files of circles(graph)) violations.push({ kind: "circle", files });
  return violations;
}
