import { randomBytes } from "node:crypto";
// Only the signing, not the delivery: the delivery loads Clerk's JSON shapes, about a second a test file.
import { svixHeaders } from "../src/webhooks/signing";

export { newWebhookSecret } from "../src/webhooks/signing";

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
