import { describe, expect, it } from "vitest";
import { readClerkSpec } from "../../contract/clerk-specs";
import { createClerkEmulator } from "../../src";
import { declaredOperations, withDeclarations } from "../../src/backend/declarations";

// Each Backend API write declares its body fields where it is registered
// (`route("POST", pattern, { body }, handler)`); here every declaration is held
// to Clerk's OpenAPI description: a rule (kept, followed, or refused with a
// reason) for every field Clerk documents for the operation, and no other.
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

// Starting the emulator registers every operation; one without its declaration throws here.
createClerkEmulator({ dataDir: null, mountPath: "", secretKey: "sk_live_x", issuer: "https://x.invalid" });
const writes = [...declaredOperations()].filter(([key]) => !key.startsWith("GET "));

describe("the Backend API's body fields", () => {
  it("are declared by every write the emulator answers", () => {
    expect(writes.length).toBeGreaterThan(100);
  });

  it.each(writes)("%s: a rule for each field Clerk documents, and no other", (key, declared) => {
    const [method, pattern] = key.split(" ") as [string, string];
    const fields = Object.keys(declared.body ?? {}).sort();
    // What @clerk/backend's betaFeatures.changeDomain sends, a path Clerk's description does not list: the
    // documented POST /instance/change_domain under its older name (contract/allowlist.ts).
    if (key === "POST /v1/beta_features/change_domain") {
      expect(documentedFields(method, pattern)).toBeNull();
      expect(fields).toEqual(documentedFields("POST", "/v1/instance/change_domain"));
      return;
    }
    expect(fields).toEqual(documentedFields(method, pattern));
  });

  it("must be declared: a write without them cannot be registered", () => {
    const registered: string[] = [];
    const route = withDeclarations((method, pattern) => void registered.push(`${method} ${pattern}`));
    route("POST", "/v1/things", { body: { name: "kept" } }, () => null);
    route("GET", "/v1/widgets", { query: [] }, () => null);
    expect(() => route("PATCH", "/v1/things", {}, () => null)).toThrow(/declare its body fields/);
    expect(registered).toEqual(["POST /v1/things", "GET /v1/widgets"]);
  });
});
