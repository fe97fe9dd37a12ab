// The package's layers, one way down: state → domain → json → the APIs (frontend, backend, control,
// webhooks, with the HTTP kit beside them) → hosts. ESLint enforces the same per folder; this test also
// sees import circles, which a per-file lint rule cannot.
import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = resolve(dirname(fileURLToPath(import.meta.url)), "../../src");

/** Higher layers may import lower ones, never the reverse. The APIs share one rank but never reach each other. */
const RANK: Record<string, number> = {
  state: 0,
  domain: 1,
  json: 2,
  http: 3,
  frontend: 3,
  backend: 3,
  webhooks: 3,
  control: 3,
  hosts: 4,
};
const APIS = new Set(["frontend", "backend"]);
const NO_EXPRESS = new Set(["state", "domain", "json"]);

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** The specifiers a module needs at run time: `import type` and all-`type` named imports do not count. */
export function runtimeImports(source: string): string[] {
  const specifiers: string[] = [];
  const statement = /^\s*(import|export)\s+([^;]*?)\s*from\s*["']([^"']+)["']/gms;
  for (const [, , clause = "", specifier = ""] of source.matchAll(statement)) {
    if (/^type\s/.test(clause)) continue;
    const named = /^\{([^}]*)\}$/s.exec(clause.trim());
    if (named) {
      const names = (named[1] ?? "")
        .split(",")
        .map((name) => name.trim())
        .filter(Boolean);
      if (names.length > 0 && names.every((name) => name.startsWith("type "))) continue;
    }
    specifiers.push(specifier);
  }
  for (const [, specifier = ""] of source.matchAll(/^\s*import\s*["']([^"']+)["']/gm)) specifiers.push(specifier);
  return specifiers;
}

function resolveRelative(from: string, specifier: string, known: Set<string>): string | undefined {
  const base = resolve(dirname(from), specifier.replace(/\.js$/, ""));
  return [`${base}.ts`, join(base, "index.ts"), base].find((candidate) => known.has(candidate));
}

/** Local edges are run-time only; `usesExpress` counts `import type` too, since a lower layer should not know express's shapes. */
type Graph = Map<string, { local: string[]; usesExpress: boolean }>;

function importGraph(): Graph {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const graph: Graph = new Map();
  for (const file of files) {
    const source = readFileSync(file, "utf8");
    const specifiers = runtimeImports(source);
    const local = specifiers
      .filter((specifier) => specifier.startsWith("."))
      .map((specifier) => resolveRelative(file, specifier, known))
      .filter((target): target is string => target !== undefined);
    const usesExpress = /\bfrom\s*["']express["']/.test(source);
    graph.set(file, { local, usesExpress });
  }
  return graph;
}

const name = (file: string) => relative(SRC, file);
/** What sits directly under src/ (index.ts, the wiring; settings.ts) is the hosts' layer. */
const layerOf = (file: string): string => /^([^/]+)\//.exec(name(file))?.[1] ?? "hosts";

function cycles(graph: Graph): string[][] {
  const found: string[][] = [];
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, "open");
    path.push(file);
    for (const target of graph.get(file)?.local ?? []) {
      if (state.get(target) === "open") found.push([...path.slice(path.indexOf(target)), target].map(name));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of [...graph.keys()].sort()) if (!state.has(file)) visit(file);
  return found;
}

function layerViolations(graph: Graph): string[] {
  const violations: string[] = [];
  for (const [file, { local, usesExpress }] of graph) {
    const from = layerOf(file);
    for (const target of local) {
      const to = layerOf(target);
      const upward = (RANK[to] ?? 99) > (RANK[from] ?? 99);
      const across = from !== to && APIS.has(from) && APIS.has(to);
      if (upward || across) violations.push(`${name(file)} (${from}) imports ${name(target)} (${to})`);
    }
    if (NO_EXPRESS.has(from) && usesExpress) violations.push(`${name(file)} (${from}) imports express`);
  }
  return violations.sort();
}

describe("the package's layers", () => {
  const graph = importGraph();

  it("reads the whole source tree", () => {
    expect(graph.size).toBeGreaterThan(90);
    expect([...graph.keys()].map(layerOf).every((layer) => layer in RANK)).toBe(true);
  });

  it("has no runtime import circle", () => {
    expect(cycles(graph).map((cycle) => cycle.join(" → "))).toEqual([]);
  });

  it("imports only downward, never across the two APIs, and keeps express above json/", () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it("sees type-only imports as free and value imports as edges", () => {
    expect(runtimeImports(`import type { A } from "./a";\nimport { type B } from "./b";`)).toEqual([]);
    expect(runtimeImports(`import {\n  type B,\n  c,\n} from "./b";\nexport { d } from "./d";`)).toEqual([
      "./b",
      "./d",
    ]);
  });
});
