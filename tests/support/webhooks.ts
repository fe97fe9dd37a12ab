import { randomBytes } from "node:crypto";
import { svixHeaders } from "../../emulator/webhooks";

export { newWebhookSecret } from "../../emulator/webhooks";

/**
 * A Clerk webhook as Svix sends it: the body and the three `svix-*` headers,
 * signed with `secret` (or at the time and with the id a test chooses).
 */
export function signedWebhook(
  secret: string,
  event: { type: string; data: Record<string, unknown> },
  { id = `msg_${randomBytes(12).toString("hex")}`, timestamp = Math.floor(Date.now() / 1000) } = {},
) {
  const body = JSON.stringify({ object: "event", timestamp: timestamp * 1000, instance_id: "ins_test", ...event });
  return { body, headers: svixHeaders(secret, id, body, timestamp) };
}

/**
 * Has the server forget what it keeps of an organization (its profile, its
 * members, everyone's lists of organizations), as Clerk's webhook for a
 * change to it does: the next reads reach the Backend API.
 */
export async function forgetOrganizationCaches(origin: string, secret: string, orgId: string) {
  const { body, headers } = signedWebhook(secret, {
    type: "organization.updated",
    data: { id: orgId, object: "organization" },
  });
  const res = await fetch(`${origin}/webhooks/clerk`, { method: "POST", headers, body });
  if (res.status !== 200) throw new Error(`the webhook was refused: ${res.status}`);
}
