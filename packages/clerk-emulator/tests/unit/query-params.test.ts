import { describe, expect, it } from "vitest";
import { readClerkSpec } from "../../contract/clerk-specs";
import { createClerkEmulator } from "../../src";
import { declaredOperations, withDeclarations } from "../../src/backend/declarations";

// Each Backend API GET declares its query parameters where it is registered
// (`route("GET", pattern, { query }, handler)`); here every declaration is held
// to Clerk's OpenAPI description: each GET takes exactly the parameters Clerk
// documents for it.
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

// Starting the emulator registers every operation; one without its declaration throws here.
createClerkEmulator({ dataDir: null, mountPath: "", secretKey: "sk_live_x", issuer: "https://x.invalid" });
const gets = [...declaredOperations()].filter(([key]) => key.startsWith("GET "));

describe("the Backend API's query parameters", () => {
  it("are declared by every GET the emulator answers", () => {
    expect(gets.length).toBeGreaterThan(40);
  });

  it.each(gets)("%s: Clerk's documented ones", (key, declared) => {
    const pattern = key.slice("GET ".length);
    const documented = documentedQueryParams(pattern);
    // Clerk's description has no GET for the handshake payload (contract/allowlist.ts).
    if (pattern === "/v1/clients/handshake_payload") {
      expect(documented).toBeNull();
      return;
    }
    expect([...(declared.query ?? [])].sort()).toEqual(documented);
  });

  it("must be declared: a GET without them cannot be registered", () => {
    const registered: string[] = [];
    const route = withDeclarations((method, pattern) => void registered.push(`${method} ${pattern}`));
    route("GET", "/v1/things", { query: ["limit"] }, () => null);
    route("POST", "/v1/widgets", { body: {} }, () => null);
    expect(() => route("GET", "/v1/widgets", {}, () => null)).toThrow(/declare its query parameters/);
    expect(registered).toEqual(["GET /v1/things", "POST /v1/widgets"]);
  });
});
