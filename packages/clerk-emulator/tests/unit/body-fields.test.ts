import { describe, expect, it } from "vitest";
import { readClerkSpec } from "../../contract/clerk-specs";
import { createClerkEmulator } from "../../src";
import { BACKEND_BODY_FIELDS, withDeclaredBodyFields } from "../../src/backend/body-params";

// The emulator's one table of Backend API body fields
// (src/backend/body-params.ts) against Clerk's OpenAPI description: each
// write it answers has a rule (kept, followed, or refused with a reason) for
// every field Clerk documents for it, and no other.
type Schema = { properties?: Record<string, unknown>; $ref?: string };
type Operation = { requestBody?: { content: Record<string, { schema: Schema }> } };
type Spec = { paths: Record<string, Record<string, Operation>>; components: { schemas: Record<string, Schema> } };
const spec = readClerkSpec("bapi-2025-11-10.yml") as Spec;

function documentedFields(method: string, pattern: string): string[] | null {
  const shape = pattern.replace(/^\/v1/, "").replace(/:[A-Za-z]+/g, "{}");
  const path = Object.keys(spec.paths).find((p) => p.replace(/\{[^}]+\}/g, "{}") === shape);
  const operation = path ? spec.paths[path]![method.toLowerCase()] : undefined;
  if (!operation) return null;
  const content = operation.requestBody?.content ?? {};
  let schema = (content["application/json"] ?? Object.values(content)[0])?.schema;
  if (schema?.$ref) schema = spec.components.schemas[schema.$ref.split("/").pop()!];
  return Object.keys(schema?.properties ?? {}).sort();
}

describe("the Backend API's body fields", () => {
  it.each(Object.entries(BACKEND_BODY_FIELDS))(
    "%s: a rule for each field Clerk documents, and no other",
    (key, rules) => {
      const [method, pattern] = key.split(" ") as [string, string];
      // What @clerk/backend's betaFeatures.changeDomain sends, a path Clerk's description does not list: the
      // documented POST /instance/change_domain under its older name (contract/allowlist.ts).
      if (key === "POST /v1/beta_features/change_domain") {
        expect(documentedFields(method, pattern)).toBeNull();
        expect(Object.keys(rules).sort()).toEqual(documentedFields("POST", "/v1/instance/change_domain"));
        return;
      }
      expect(Object.keys(rules).sort()).toEqual(documentedFields(method, pattern));
    },
  );

  it("cover every write the emulator registers: one without an entry cannot start", () => {
    expect(() =>
      createClerkEmulator({ dataDir: null, mountPath: "", secretKey: "sk_live_x", issuer: "https://x.invalid" }),
    ).not.toThrow();
    const registered: string[] = [];
    const route = withDeclaredBodyFields((method, pattern) => void registered.push(`${method} ${pattern}`), {
      "POST /v1/things": { name: "kept" },
    });
    route("POST", "/v1/things", () => null);
    route("GET", "/v1/widgets", () => null);
    expect(() => route("PATCH", "/v1/things", () => null)).toThrow(/name its body fields/);
    expect(registered).toEqual(["POST /v1/things", "GET /v1/widgets"]);
  });
});
