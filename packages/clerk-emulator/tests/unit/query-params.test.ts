import { describe, expect, it } from "vitest";
import { readClerkSpec } from "../../contract/clerk-specs";
import { createClerkEmulator } from "../../src";
import { BACKEND_QUERY_PARAMS, withDeclaredQueryParams } from "../../src/backend/query-params";

// The emulator's one table of Backend API query parameters
// (src/backend/query-params.ts) against Clerk's OpenAPI description:
// each GET it answers takes exactly the parameters Clerk documents for it.
type Parameter = { name: string; in: string } | { $ref: string };
type Spec = {
  paths: Record<string, Record<string, { parameters?: Parameter[] }> & { parameters?: Parameter[] }>;
  components: { parameters: Record<string, { name: string; in: string }> };
};
const spec = readClerkSpec("bapi-2025-11-10.yml") as Spec;

function documentedQueryParams(pattern: string): string[] | null {
  // `/v1/users/:id` in the emulator is `/users/{user_id}` in Clerk's description.
  const shape = pattern.replace(/^\/v1/, "").replace(/:[A-Za-z]+/g, "{}");
  const path = Object.keys(spec.paths).find((p) => p.replace(/\{[^}]+\}/g, "{}") === shape);
  const item = path ? spec.paths[path]! : null;
  if (!item?.get) return null;
  return [...(item.parameters ?? []), ...(item.get?.parameters ?? [])]
    .map((p) => ("$ref" in p ? spec.components.parameters[p.$ref.split("/").pop()!]! : p))
    .filter((p) => p.in === "query")
    .map((p) => p.name)
    .sort();
}

describe("the Backend API's query parameters", () => {
  it("are Clerk's documented ones for every GET the emulator answers", () => {
    for (const [pattern, known] of Object.entries(BACKEND_QUERY_PARAMS)) {
      const documented = documentedQueryParams(pattern);
      // Clerk's description has no GET for the handshake payload (contract/allowlist.ts).
      if (pattern === "/v1/clients/handshake_payload") {
        expect(documented).toBeNull();
        continue;
      }
      expect([...known].sort(), pattern).toEqual(documented);
    }
  });

  it("cover every GET the emulator registers: one without an entry cannot start", () => {
    // Starting the emulator registers every route; a GET missing from the table throws here.
    expect(() =>
      createClerkEmulator({ dataDir: null, mountPath: "", secretKey: "sk_live_x", issuer: "https://x.invalid" }),
    ).not.toThrow();
    const registered: string[] = [];
    const route = withDeclaredQueryParams((method, pattern) => void registered.push(`${method} ${pattern}`), {
      "/v1/things": ["limit"],
    });
    route("GET", "/v1/things", () => null);
    route("POST", "/v1/widgets", () => null);
    expect(() => route("GET", "/v1/widgets", () => null)).toThrow(/name its query parameters/);
    expect(registered).toEqual(["GET /v1/things", "POST /v1/widgets"]);
  });
});
