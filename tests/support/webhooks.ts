import { signedWebhook } from "clerk-emulator/testing";

export { newWebhookSecret, signedWebhook } from "clerk-emulator/testing";

/**
 * Has the server forget what it keeps of an organization's own pages (its
 * profile, newest members and directory), as Clerk's webhook for a change
 * to one of its memberships does when it cannot be written from its
 * payload (here: it names no role): the next reads reach the Backend API.
 * (A rename's webhook no longer forgets: it writes the new name.)
 */
export async function forgetOrganizationCaches(origin: string, secret: string, orgId: string) {
  const { body, headers } = signedWebhook(secret, {
    type: "organizationMembership.updated",
    data: {
      object: "organization_membership",
      organization: { id: orgId, object: "organization" },
      public_user_data: { user_id: "user_nobody_kept" },
    },
  });
  const res = await fetch(`${origin}/webhooks/clerk`, { method: "POST", headers, body });
  if (res.status !== 200) throw new Error(`the webhook was refused: ${res.status}`);
}
