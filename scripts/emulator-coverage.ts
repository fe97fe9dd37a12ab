// How much of Clerk's API the emulator answers: every operation (method and
// path) of Clerk's OpenAPI descriptions (tests/contract/clerk-openapi), matched
// against the routes the emulator registers when it starts. Prints the figure
// for each API, then each tag of the spec, the groups left out on purpose
// apart; `--missing` also lists each operation not implemented.
//
//   npx vite-node scripts/emulator-coverage.ts [--missing] [--json]
import { readFileSync } from "node:fs";
import { parse } from "yaml";
import { createClerkEmulator } from "../emulator";
import { registeredOperations } from "../emulator/routing";

type Api = "fapi" | "bapi";
type Operation = { api: Api; method: string; path: string; tag: string };

/**
 * What the emulator leaves out on purpose (docs/emulator.md, "Coverage"):
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

const SPECS: Record<Api, string> = { fapi: "fapi-2025-11-10.yml", bapi: "bapi-2025-11-10.yml" };
const METHODS = ["get", "post", "put", "patch", "delete"];

function specOperations(api: Api): Operation[] {
  const file = new URL(`../tests/contract/clerk-openapi/${SPECS[api]}`, import.meta.url);
  const spec = parse(readFileSync(file, "utf8")) as { paths: Record<string, Record<string, { tags?: string[] }>> };
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
      leftOut: LEFT_OUT[api].includes(op.tag),
    }));
    const tags = new Map<string, { done: number; total: number; leftOut: boolean }>();
    for (const op of operations) {
      const entry = tags.get(op.tag) ?? { done: 0, total: 0, leftOut: op.leftOut };
      entry.total += 1;
      if (op.done) entry.done += 1;
      tags.set(op.tag, entry);
    }
    return { api, operations, tags };
  });
}

const NAMES: Record<Api, string> = { fapi: "Frontend API", bapi: "Backend API" };

{
  const result = coverage();
  if (process.argv.includes("--json")) {
    console.log(
      JSON.stringify(
        result.map((r) => ({ ...r, tags: Object.fromEntries(r.tags) })),
        null,
        2,
      ),
    );
  } else {
    for (const { api, operations, tags } of result) {
      const done = operations.filter((op) => op.done).length;
      const inScope = operations.filter((op) => !op.leftOut);
      console.log(
        `${NAMES[api]}: ${done} of ${operations.length} operations ` +
          `(${inScope.filter((op) => op.done).length} of the ${inScope.length} outside the groups left out)`,
      );
      for (const [tag, t] of [...tags].sort(([a], [b]) => a.localeCompare(b))) {
        console.log(
          `  ${tag.padEnd(34)} ${String(t.done).padStart(3)} / ${String(t.total).padEnd(3)}${t.leftOut ? " (left out)" : ""}`,
        );
      }
      if (process.argv.includes("--missing")) {
        for (const op of operations.filter((o) => !o.done && !o.leftOut))
          console.log(`    missing ${op.method} ${op.path}`);
      }
    }
  }
  process.exit(0);
}
