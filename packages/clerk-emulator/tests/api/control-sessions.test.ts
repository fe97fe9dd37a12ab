import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startInProcessEmulator, type InProcessEmulator } from "../../testing";

// Issue 55: the control API's ready-made sessions mint their tokens through the
// Frontend API's minter, so a test signed in that way holds the token clerk-js
// would: the same claims (`fva`, `act` when impersonated, version 2's `v`/`o`).

let emu: InProcessEmulator;

beforeAll(async () => {
  emu = await startInProcessEmulator({ sessionTokenVersion: 2 });
});
afterAll(async () => {
  await emu?.close();
});

type Claims = Record<string, unknown>;
const claimsOf = (jwt: string) => JSON.parse(Buffer.from(jwt.split(".")[1]!, "base64url").toString()) as Claims;

/** A ready-made session from the control API, and the token clerk-js then gets for it from the Frontend API. */
async function bothTokens(body: Record<string, unknown>): Promise<{ control: Claims; clerkJs: Claims }> {
  const made = await fetch(`${emu.origin}/__clerk/_emulator/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  expect(made.status).toBe(200);
  const session = (await made.json()) as { sessionId: string; clientId: string; sessionToken: string };
  const minted = await fetch(`${emu.origin}/__clerk/v1/client/sessions/${session.sessionId}/tokens`, {
    method: "POST",
    headers: { Cookie: `__client=${session.clientId}` },
  });
  expect(minted.status).toBe(200);
  const { jwt } = (await minted.json()) as { jwt: string };
  return { control: claimsOf(session.sessionToken), clerkJs: claimsOf(jwt) };
}

/** The shape of a token's claims: their names, and the names inside `o`. */
const shape = (claims: Claims) => ({
  names: Object.keys(claims).sort(),
  o: claims.o ? Object.keys(claims.o as Claims).sort() : null,
});

describe("the control API's ready-made sessions", () => {
  it("carry the claims clerk-js's token carries, fva and version 2's organization included", async () => {
    const { bapi } = emu;
    const user = (
      await bapi("POST", "/v1/users", {
        email_address: [`ctl-${Date.now()}@example.com`],
        password: "a-long-password-1",
      })
    ).body as { id: string };
    const org = (await bapi("POST", "/v1/organizations", { name: "Control Co", created_by: user.id })).body as {
      id: string;
    };
    const { control, clerkJs } = await bothTokens({ userId: user.id, organizationId: org.id });
    expect(shape(control)).toEqual(shape(clerkJs));
    expect(control.fva).toEqual([0, -1]);
    expect(control.v).toBe(2);
    expect((control.o as Claims).id).toBe(org.id);
  });

  it("carry the impersonator in act, as an impersonated session's token does", async () => {
    const { bapi } = emu;
    const user = (
      await bapi("POST", "/v1/users", {
        email_address: [`imp-${Date.now()}@example.com`],
        password: "a-long-password-1",
      })
    ).body as { id: string };
    const { control, clerkJs } = await bothTokens({ userId: user.id, actor: { sub: "user_support" } });
    expect(shape(control)).toEqual(shape(clerkJs));
    expect(control.act).toEqual({ sub: "user_support" });
  });

  it("refuses an actor without sub", async () => {
    const user = (
      await emu.bapi("POST", "/v1/users", {
        email_address: [`act-${Date.now()}@example.com`],
        password: "a-long-password-1",
      })
    ).body as { id: string };
    const res = await fetch(`${emu.origin}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ userId: user.id, actor: "support" }),
    });
    expect(res.status).toBe(400);
  });
});
