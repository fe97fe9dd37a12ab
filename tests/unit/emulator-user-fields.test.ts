import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import { USER_CREATE_FIELDS, USER_METADATA_FIELDS, USER_UPDATE_FIELDS } from "../../emulator/backend/users";

// The emulator's tables of what it does with each body field of the user
// endpoints (emulator/backend/users.ts), against Clerk's OpenAPI description:
// every field Clerk lists has a rule (kept, followed, or refused with a reason).
type Schema = { properties: Record<string, unknown>; $ref?: string };
type Spec = {
  paths: Record<string, Record<string, { requestBody: { content: { "application/json": { schema: Schema } } } }>>;
  components: { schemas: Record<string, Schema> };
};
const spec = parse(
  readFileSync(resolve(import.meta.dirname, "../contract/clerk-openapi/bapi-2025-11-10.yml"), "utf8"),
) as Spec;

function documentedFields(path: string, method: string): string[] {
  let schema = spec.paths[path]![method]!.requestBody.content["application/json"].schema;
  if (schema.$ref) schema = spec.components.schemas[schema.$ref.split("/").pop()!]!;
  return Object.keys(schema.properties).sort();
}

describe("the user endpoints' body fields", () => {
  it.each([
    ["POST", "/users", USER_CREATE_FIELDS],
    ["PATCH", "/users/{user_id}", USER_UPDATE_FIELDS],
    ["PATCH", "/users/{user_id}/metadata", USER_METADATA_FIELDS],
  ])("%s %s: a rule for each field Clerk documents, and no other", (method, path, table) => {
    expect(Object.keys(table).sort()).toEqual(documentedFields(path, method.toLowerCase()));
  });
});
