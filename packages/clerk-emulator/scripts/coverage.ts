// How much of Clerk's API the emulator answers: every operation (method and
// path) of Clerk's OpenAPI descriptions (contract/clerk-openapi), matched
// against the routes the emulator registers when it starts. Prints the figure
// for each API, then each tag of the spec, the groups left out on purpose
// apart; `--missing` also lists each operation not implemented.
//
//   npx vite-node packages/clerk-emulator/scripts/coverage.ts [--missing] [--json]
//   (npm run emulator:coverage from the repository's root)
import { existsSync, readFileSync } from "node:fs";
import { readClerkSpec } from "../contract/clerk-specs";
import { createClerkEmulator } from "../src";
import { registeredOperations } from "../src/http/routing";

type Api = "fapi" | "bapi";
type Operation = { api: Api; method: string; path: string; tag: string };

/**
 * What the emulator leaves out on purpose (GUIDE.md, "Coverage"):
 * billing, enterprise SSO (SAML, OIDC), SCIM, Web3, Clerk as an OAuth identity
 * provider, and the machine-to-machine products. Counted in the totals all the same.
 */
const LEFT_OUT: Record<Api, string[]> = {
  fapi: [
    "Checkouts",
    "Payment Attempts",
    "Payment Methods",
    "Plans",
    "Statements",
    "Subscription Items",
    "Subscriptions",
    "Enterprise Connections",
    "SAML",
    "Web3 Wallets",
    "OAuth2 Identity Provider",
    "API Keys",
  ],
  bapi: [
    "Billing",
    "Enterprise Connections",
    "SAML Connections",
    "SCIM Directories",
    "Directories",
    "OAuth Applications",
    "OAuth Access Tokens",
    "M2M Tokens",
    "Machines",
    "API Keys",
    "Agent Tasks",
  ],
};

/** The same groups' operations filed under another tag (a user's billing, a user's web3 wallet…). */
const LEFT_OUT_PATHS = [/\/billing\//, /\/web3_wallets\//, /\/oauth_access_tokens\//];

const SPECS: Record<Api, string> = { fapi: "fapi-2025-11-10.yml", bapi: "bapi-2025-11-10.yml" };
const METHODS = ["get", "post", "put", "patch", "delete"];

function specOperations(api: Api): Operation[] {
  const spec = readClerkSpec(SPECS[api]) as { paths: Record<string, Record<string, { tags?: string[] }>> };
  return Object.entries(spec.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([method]) => METHODS.includes(method))
      .map(([method, op]) => ({ api, method: method.toUpperCase(), path, tag: op.tags?.[0] ?? "(untagged)" })),
  );
}

/** `/v1/users/{user_id}` and `/v1/users/:id` both become `/v1/users/{}`. */
const shape = (path: string) => path.replace(/\{[^}]+\}|:[A-Za-z_]+/g, "{}").replace(/\/+$/, "");

/** The emulator's own routes: the Backend API's are Clerk's paths under `/v1`, which its spec's server URL holds. */
function implemented(): Set<string> {
  const emulator = createClerkEmulator({
    dataDir: null,
    mountPath: "",
    secretKey: "sk_test_coverage",
    issuer: "https://clerk.emulator.invalid",
  });
  emulator.close();
  return new Set(
    registeredOperations().map((key) => {
      const [api, method, pattern] = key.split(" ") as [Api, string, string];
      return `${api} ${method} ${shape(api === "bapi" ? pattern.replace(/^\/v1/, "") : pattern)}`;
    }),
  );
}

function coverage() {
  const have = implemented();
  return (["fapi", "bapi"] as const).map((api) => {
    const operations = specOperations(api).map((op) => ({
      ...op,
      done: have.has(`${api} ${op.method} ${shape(op.path)}`),
      leftOut: LEFT_OUT[api].includes(op.tag) || LEFT_OUT_PATHS.some((p) => p.test(op.path)),
    }));
    const tags = new Map<string, { done: number; total: number; leftOut: boolean }>();
    for (const op of operations) {
      const entry = tags.get(op.tag) ?? { done: 0, total: 0, leftOut: LEFT_OUT[api].includes(op.tag) };
      entry.total += 1;
      if (op.done) entry.done += 1;
      tags.set(op.tag, entry);
    }
    return { api, operations, tags };
  });
}

/**
 * The Backend API operations one `@clerk/backend` calls, read from its bundle:
 * each `this.request({ method, path })`, the path a constant (`basePath3`) or
 * `joinPaths(basePath3, id, "literal", …)` (an identifier not bound to a path
 * constant is a path parameter).
 */
function sdkOperations(bundle: string): Set<string> {
  const source = readFileSync(bundle, "utf8");
  const bases = new Map([...source.matchAll(/var (\w+) = "(\/[^"]*)";/g)].map((m) => [m[1]!, m[2]!]));
  const found = new Set<string>();
  for (const call of source.matchAll(/this\.request\(\{([\s\S]*?)\}\)/g)) {
    const body = call[1]!;
    const method = /method: "(\w+)"/.exec(body)?.[1];
    const path = /path: (?:joinPaths\(([^)]*)\)|(\w+)|"([^"]+)")/.exec(body);
    if (!method || !path) continue;
    const parts =
      path[1] !== undefined ? path[1].split(",").map((p) => p.trim()) : [path[2] ?? JSON.stringify(path[3])];
    const segments = parts.map((part) =>
      bases.has(part) ? bases.get(part)! : /^"(.*)"$/.test(part) ? part.slice(1, -1) : "{}",
    );
    found.add(`${method} ${shape(`/${segments.join("/")}`.replace(/\/{2,}/g, "/"))}`);
  }
  return found;
}

const SDK_LINES = [
  { name: "Core 2: @clerk/backend", dir: "node_modules/@clerk/backend" },
  { name: "Core 3: @clerk/backend", dir: "tests/fixtures/core3/node_modules/@clerk/backend" },
];

function sdkCoverage(bapi: { method: string; path: string; done: boolean; leftOut: boolean }[]) {
  // The SDKs are installed where the package sits: the repository's root (Core 2) and its Core 3 fixture.
  const root = new URL("../../../", import.meta.url).pathname;
  return SDK_LINES.map(({ name, dir }) => {
    const bundle = `${root}${dir}/dist/index.js`;
    if (!existsSync(bundle)) return { name, version: null, calls: 0, done: 0, inScope: 0, inScopeDone: 0 };
    const version = (JSON.parse(readFileSync(`${root}${dir}/package.json`, "utf8")) as { version: string }).version;
    const calls = sdkOperations(bundle);
    const used = bapi.filter((op) => calls.has(`${op.method} ${shape(op.path)}`));
    const inScope = used.filter((op) => !op.leftOut);
    return {
      name,
      version,
      calls: used.length,
      done: used.filter((op) => op.done).length,
      inScope: inScope.length,
      inScopeDone: inScope.filter((op) => op.done).length,
    };
  });
}

const NAMES: Record<Api, string> = { fapi: "Frontend API", bapi: "Backend API" };

{
  const result = coverage();
  const sdks = sdkCoverage(result.find((r) => r.api === "bapi")!.operations);
  if (process.argv.includes("--json")) {
    const apis = result.map((r) => ({ ...r, tags: Object.fromEntries(r.tags) }));
    console.log(JSON.stringify({ apis, sdks }, null, 2));
  } else {
    for (const { api, operations, tags } of result) {
      const done = operations.filter((op) => op.done).length;
      const inScope = operations.filter((op) => !op.leftOut);
      console.log(
        `${NAMES[api]}: ${done} of ${operations.length} operations ` +
          `(${inScope.filter((op) => op.done).length} of the ${inScope.length} outside the groups left out)`,
      );
      for (const [tag, t] of [...tags].sort(([a], [b]) => a.localeCompare(b))) {
        const count = `${String(t.done).padStart(3)} / ${String(t.total).padEnd(3)}`;
        console.log(`  ${tag.padEnd(34)} ${count}${t.leftOut ? " (left out)" : ""}`);
      }
      if (process.argv.includes("--missing")) {
        for (const op of operations.filter((o) => !o.done && !o.leftOut)) {
          console.log(`    missing ${op.method} ${op.path}`);
        }
      }
    }
    for (const sdk of sdks) {
      console.log(
        sdk.version === null
          ? `${sdk.name}: not installed (npm ci in tests/fixtures/core3)`
          : `${sdk.name} ${sdk.version}: ${sdk.done} of the ${sdk.calls} Backend API operations it calls ` +
              `(${sdk.inScopeDone} of the ${sdk.inScope} outside the groups left out)`,
      );
    }
  }
  process.exit(0);
}
