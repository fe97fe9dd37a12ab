import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { errorCode, frontendClient, uniqueEmail } from "../../testing";
import {
  apiError,
  PASSWORD,
  sdks,
  startEmulatorWithWebhooks,
  type Clerk,
  type Core3Users,
  type EmulatorWithWebhooks,
} from "../support/user-access";

// The Backend API's email addresses, allow-list, block-list and instance
// restrictions, called by both of Clerk's SDK lines (@clerk/backend 2 and 3),
// and their effect at the Frontend API's sign-in and sign-up, over HTTP.

let env: EmulatorWithWebhooks;
beforeAll(async () => {
  env = await startEmulatorWithWebhooks();
});
afterAll(async () => {
  await env?.close();
});
afterEach(() => {
  // Every webhook received keeps Clerk's spec for its event type.
  expect(env.webhookBreaches()).toEqual([]);
});

describe.each(sdks)("%s", (_name, load) => {
  let clerk: Clerk;
  beforeAll(async () => {
    clerk = (await load())({ secretKey: env.secretKey, apiUrl: `${env.emu.origin}/__clerk/api` });
  });
  const newUser = async (name: string) => {
    const email = uniqueEmail(name);
    const user = await clerk.users.createUser({ emailAddress: [email], password: PASSWORD });
    return { id: user.id, email };
  };

  it("adds, verifies, makes primary and deletes email addresses, the user and sign-in following", async () => {
    const { id, email } = await newUser("emails");
    const second = uniqueEmail("second");
    const added = await clerk.emailAddresses.createEmailAddress({ userId: id, emailAddress: second });
    expect(added.verification?.status).toBe("unverified");
    expect(await env.signIn(second)).toBe("form_identifier_not_found");
    expect(await apiError(clerk.emailAddresses.createEmailAddress({ userId: id, emailAddress: email }))).toMatchObject({
      code: "form_identifier_exists",
    });
    expect(await apiError(clerk.emailAddresses.updateEmailAddress(added.id, { primary: true }))).toMatchObject({
      code: "form_param_value_invalid",
    });

    const verified = await clerk.emailAddresses.updateEmailAddress(added.id, { verified: true, primary: true });
    expect(verified.verification?.status).toBe("verified");
    const user = await clerk.users.getUser(id);
    expect(user.primaryEmailAddressId).toBe(added.id);
    expect(await env.signIn(second)).toBe("complete");
    expect((await clerk.emailAddresses.getEmailAddress(added.id)).emailAddress).toBe(second);

    expect(await apiError(clerk.emailAddresses.deleteEmailAddress(added.id))).toMatchObject({
      code: "primary_identification_deletion_not_allowed",
    });
    const oldId = user.emailAddresses.find((e) => e.emailAddress === email)!.id;
    expect(await clerk.emailAddresses.deleteEmailAddress(oldId)).toMatchObject({ id: oldId, deleted: true });
    expect(await env.signIn(email)).toBe("form_identifier_not_found");
    expect(await apiError(clerk.emailAddresses.getEmailAddress(oldId))).toMatchObject({ status: 404 });
  });

  it("verifies an address with a code sent through the Backend API; a wrong code is told by the status", async () => {
    const { id } = await newUser("code");
    const address = uniqueEmail("coded");
    const added = await clerk.emailAddresses.createEmailAddress({ userId: id, emailAddress: address });
    const prepared = await env.emu.bapi("POST", `/v1/email_addresses/${added.id}/prepare_verification`);
    expect(prepared.body).toMatchObject({ status: "unverified", strategy: "email_code", attempts: 0 });
    // The code goes out as Clerk's verification email (email.created).
    const [mail] = await env.eventsAbout(address, 1);
    expect(mail).toMatchObject({
      type: "email.created",
      data: { slug: "verification_code", email_address_id: added.id, user_id: id, data: { otp_code: "424242" } },
    });
    const attempt = (code: string) =>
      env.emu.bapi("POST", `/v1/email_addresses/${added.id}/attempt_verification`, {
        verification_id: prepared.body.id,
        code,
      });
    expect((await attempt("000000")).body).toMatchObject({ status: "unverified", attempts: 1 });
    expect((await attempt("424242")).body).toMatchObject({ status: "verified", attempts: 2 });
    expect(errorCode(await attempt("424242"))).toBe("verification_already_verified");
    expect((await clerk.emailAddresses.getEmailAddress(added.id)).verification?.status).toBe("verified");
  });

  it("replaces all of a user's addresses with one primary address", async () => {
    const { id, email } = await newUser("replace");
    const next = uniqueEmail("replaced");
    const users = clerk.users as Core3Users;
    // @clerk/backend's EmailAddress keeps no raw JSON: compare what both shapes name alike.
    const replaced = users.replaceUserEmailAddress
      ? await users.replaceUserEmailAddress(id, { emailAddress: next })
      : (({ body }) => ({
          id: body.id as string,
          emailAddress: body.email_address as string,
          verification: { status: body.verification.status as string },
        }))(await env.emu.bapi("PUT", `/v1/users/${id}/email_address`, { email_address: next }));
    expect(replaced).toMatchObject({ emailAddress: next, verification: { status: "verified" } });
    const user = await clerk.users.getUser(id);
    expect(user.emailAddresses.map((e) => e.emailAddress)).toEqual([next]);
    expect(user.primaryEmailAddressId).toBe(replaced.id);
    expect(await env.signIn(email)).toBe("form_identifier_not_found");
    expect(await env.signIn(next)).toBe("complete");
    const reserved = await env.emu.bapi("PUT", `/v1/users/${id}/email_address`, {
      email_address: next,
      identification_status: "reserved",
    });
    expect(errorCode(reserved)).toBe("form_param_value_invalid");
  });

  it("restricts sign-up to the allow-list (an invitation bypasses it) and refuses the block-list", async () => {
    const insider = uniqueEmail("insider");
    const existing = await newUser("existing");
    const entry = await clerk.allowlistIdentifiers.createAllowlistIdentifier({ identifier: insider, notify: false });
    expect(entry).toMatchObject({ identifier: insider, identifierType: "email_address" });
    const listed = await clerk.allowlistIdentifiers.getAllowlistIdentifierList();
    expect(listed.data.map((e) => e.id)).toContain(entry.id);
    expect(listed.totalCount).toBe(listed.data.length);
    // notify: the address is invited too, and the invitation emailed.
    const notified = uniqueEmail("notified");
    const invitedEntry = await clerk.allowlistIdentifiers.createAllowlistIdentifier({
      identifier: notified,
      notify: true,
    });
    const [invitationMail] = await env.eventsAbout(notified, 1);
    expect(invitationMail).toMatchObject({ type: "email.created", data: { slug: "invitation" } });
    const invitations = await env.emu.bapi("GET", "/v1/invitations?status=pending");
    expect(invitations.body.find((i: { email_address: string }) => i.email_address === notified)?.id).toBe(
      invitedEntry.invitationId,
    );
    await clerk.allowlistIdentifiers.deleteAllowlistIdentifier(invitedEntry.id);
    try {
      const restrictions = await clerk.instance.updateRestrictions({ allowlist: true });
      expect(restrictions).toMatchObject({ allowlist: true, blocklist: false });
      const environment = await frontendClient(env.emu.origin)("GET", "/v1/environment");
      expect(environment.body.user_settings.restrictions.allowlist).toEqual({ enabled: true });

      expect(await env.signUp(uniqueEmail("stranger"))).toBe("not_allowed_access");
      expect(await env.signUp(insider)).toBe("missing_requirements");
      // Clerk applies the lists at sign-in too, unless the instance says otherwise.
      expect(await env.signIn(existing.email)).toBe("not_allowed_access");
      // Not in @clerk/backend 2's types: sent as Clerk names it.
      await env.emu.bapi("PATCH", "/v1/instance/restrictions", { allowlist_blocklist_disabled_on_sign_in: true });
      expect(await env.signIn(existing.email)).toBe("complete");

      const invited = uniqueEmail("invited");
      const invitation = await clerk.invitations.createInvitation({ emailAddress: invited, notify: false });
      const ticket = new URL(invitation.url!).searchParams.get("ticket") ?? "";
      expect(await env.signUp(invited, { strategy: "ticket", ticket })).toBe("complete");

      await clerk.instance.updateRestrictions({ allowlist: false, blocklist: true });
      const blocked = await clerk.blocklistIdentifiers.createBlocklistIdentifier({ identifier: "*@blocked.test" });
      expect((await clerk.blocklistIdentifiers.getBlocklistIdentifierList()).data.map((e) => e.id)).toContain(
        blocked.id,
      );
      expect(await env.signUp("someone@blocked.test")).toBe("not_allowed_access");
      expect(await env.signUp(uniqueEmail("free"))).toBe("missing_requirements");
      await clerk.blocklistIdentifiers.deleteBlocklistIdentifier(blocked.id);
      expect(await env.signUp("someone@blocked.test")).toBe("missing_requirements");

      await clerk.instance.updateRestrictions({ blocklist: false, blockEmailSubaddresses: true });
      expect(await env.signUp(uniqueEmail("plus").replace("@", "+tag@"))).toBe("form_email_address_blocked");
      await clerk.instance.updateRestrictions({ blockEmailSubaddresses: false, blockDisposableEmailDomains: true });
      expect(await env.signUp("throwaway@mailinator.com")).toBe("form_email_address_blocked");
      expect(await env.signUp(uniqueEmail("kept").replace("@", "+tag@"))).toBe("missing_requirements");
    } finally {
      await env.emu.bapi("PATCH", "/v1/instance/restrictions", {
        allowlist: false,
        blocklist: false,
        allowlist_blocklist_disabled_on_sign_in: false,
        block_email_subaddresses: false,
        block_disposable_email_domains: false,
      });
      await clerk.allowlistIdentifiers.deleteAllowlistIdentifier(entry.id);
    }
    expect(await env.signUp(uniqueEmail("stranger"))).toBe("missing_requirements");
  });
});
