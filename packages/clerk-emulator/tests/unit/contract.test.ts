import { describe, expect, it } from "vitest";
import { clientJSON, organizationJSON, userJSON } from "../../src/json";
import { storeWithDefaults } from "../support/store";
import { contractBreaches, loadContract, toJsonSchema, type Answer } from "../../contract";

const answer = (a: Partial<Answer> & Pick<Answer, "api" | "method" | "path" | "body">): Answer => ({
  seq: 1,
  at: 0,
  status: 200,
  contentType: "application/json; charset=utf-8",
  test: null,
  ...a,
});

describe("OpenAPI 3.0 schemas said in Ajv's JSON Schema", () => {
  it("make `nullable` beside $ref a null alternative and point local refs into the spec", () => {
    expect(toJsonSchema({ $ref: "#/components/schemas/X", nullable: true }, "fapi")).toEqual({
      anyOf: [{ $ref: "fapi#/components/schemas/X" }, { type: "null" }],
    });
  });

  it("turn draft-4 boolean exclusive bounds into numbers, and keep a property named like an annotation", () => {
    const schema = toJsonSchema(
      {
        type: "object",
        properties: { example: { type: "integer", minimum: 0, exclusiveMinimum: true, example: 3 } },
        "x-speakeasy-name-override": "n",
      },
      "bapi",
    );
    expect(schema).toEqual({ type: "object", properties: { example: { type: "integer", exclusiveMinimum: 0 } } });
  });
});

describe("the contract check", () => {
  const contract = loadContract();
  const store = storeWithDefaults();
  const org = store.state.organizations[0]!;
  const user = store.all("users")[0]!;
  const orgPath = `/v1/organizations/${org.id}`;
  // The Frontend API wraps every answer with the browser's client.
  const client = clientJSON(
    store,
    store.write(() => store.createClient()),
    () => null,
  );

  it("passes the emulator's organization as each API describes it", () => {
    for (const api of ["fapi", "bapi"] as const) {
      const body =
        api === "fapi"
          ? { response: organizationJSON(store, org, "fapi"), client }
          : organizationJSON(store, org, "bapi");
      expect(contract.check(answer({ api, method: "GET", path: orgPath, body }))?.problem ?? null).toBeNull();
    }
  });

  it("fails an organization that carries private metadata to the browser, naming the field", () => {
    const body = { response: organizationJSON(store, org, "bapi"), client };
    const mismatch = contract.check(answer({ api: "fapi", method: "GET", path: orgPath, body }));
    expect(mismatch?.operation).toBe("fapi GET /v1/organizations/{organization_id}");
    expect(mismatch?.problem).toContain("private_metadata");
  });

  it("says each broken answer in one line, and nothing for answers that keep it", () => {
    const good = { response: organizationJSON(store, org, "fapi"), client };
    const bad = { response: organizationJSON(store, org, "bapi"), client };
    const lines = contractBreaches([
      answer({ api: "fapi", method: "GET", path: orgPath, body: good }),
      answer({ api: "fapi", method: "GET", path: orgPath, body: bad }),
    ]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toContain("private_metadata");
    expect(contractBreaches([])).toEqual([]);
  });

  it("fails a user that lacks a field the spec requires", () => {
    const { lockout_expires_in_seconds: _, ...body } = userJSON(store, user, "bapi");
    const mismatch = contract.check(answer({ api: "bapi", method: "GET", path: `/v1/users/${user.id}`, body }));
    expect(mismatch?.problem).toContain("lacks lockout_expires_in_seconds");
  });

  it("matches the literal path before a template (/me/sessions/active is an array)", () => {
    const check = (body: unknown) =>
      contract.check(answer({ api: "fapi", method: "GET", path: "/v1/me/sessions/active", body }));
    expect(check({ response: [], client })?.problem).toBeTruthy();
    expect(check([])).toBeNull();
  });

  it("fails a success where Clerk has no such operation, and passes Clerk's error envelope for it", () => {
    const path = "/v1/organizations/org_1/no_such_thing";
    expect(contract.check(answer({ api: "bapi", method: "GET", path, body: {} }))?.problem).toContain("has no GET");
    const errors = { errors: [{ message: "Not found", long_message: "Not found", code: "resource_not_found" }] };
    expect(contract.check(answer({ api: "bapi", method: "GET", path, status: 404, body: errors }))).toBeNull();
    expect(
      contract.check(answer({ api: "bapi", method: "GET", path, status: 404, body: { error: "x" } })),
    ).not.toBeNull();
  });

  it("fails a status the operation does not give", () => {
    const body = organizationJSON(store, org, "bapi");
    const mismatch = contract.check(answer({ api: "bapi", method: "GET", path: orgPath, status: 201, body }));
    expect(mismatch?.problem).toContain("status 201");
  });
});
