import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { errorCode, startInProcessEmulator, type InProcessEmulator } from "../../testing";
import { backendSdks } from "../support/clerk-sdks";

// `DELETE /v1/users/:id/external_accounts/:id`, as Clerk's SDKs call it
// (`users.deleteUserExternalAccount`). The emulator has no OAuth sign-in, so
// no user has an external account: Clerk's 404 for the account, and for a
// user who does not exist, Clerk's 404 for the user.
const SECRET = "sk_live_external_accounts";
let emu: InProcessEmulator;
beforeAll(async () => {
  emu = await startInProcessEmulator({ secretKey: SECRET });
});
afterAll(async () => {
  await emu?.close();
});

describe.each(backendSdks)("deleting a user's external account: %s", (_name, load) => {
  type Users = { deleteUserExternalAccount(p: { userId: string; externalAccountId: string }): Promise<unknown> };
  const deleteAccount = async (userId: string, externalAccountId: string) => {
    const clerk = (await load())({ secretKey: SECRET, apiUrl: `${emu.origin}/__clerk/api` });
    return (clerk.users as unknown as Users).deleteUserExternalAccount({ userId, externalAccountId }).then(
      () => null,
      (e: { status?: number; errors?: { code: string; message: string }[] }) => [e.status, e.errors?.[0]?.message],
    );
  };

  it("answers Clerk's 404 for an account the user does not have", async () => {
    const [status, message] = (await deleteAccount("user_seed_ada", "eac_none")) ?? [];
    expect(status).toBe(404);
    expect(message).toMatch(/external account/i);
  });

  it("answers Clerk's 404 for a user who does not exist", async () => {
    const [status, message] = (await deleteAccount("user_none", "eac_none")) ?? [];
    expect([status, message]).toEqual([404, "User not found"]);
  });
});

it("takes no body field: any is Clerk's 422 form_param_unknown", async () => {
  const r = await emu.bapi("DELETE", "/v1/users/user_seed_ada/external_accounts/eac_none", { provider: "google" });
  expect([r.status, errorCode(r)]).toEqual([422, "form_param_unknown"]);
});
