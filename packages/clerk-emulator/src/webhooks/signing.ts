import { createHmac, randomBytes } from "node:crypto";

/**
 * A webhook signed as Svix signs Clerk's (Standard Webhooks): the HMAC-SHA256,
 * with the secret's bytes, of `<id>.<seconds>.<body>`, as `v1,<base64>`.
 */
export function svixHeaders(secret: string, id: string, body: string, seconds = Math.floor(Date.now() / 1000)) {
  const key = Buffer.from(secret.replace(/^whsec_/, ""), "base64");
  const signature = createHmac("sha256", key).update(`${id}.${seconds}.${body}`).digest("base64");
  return {
    "Content-Type": "application/json",
    "svix-id": id,
    "svix-timestamp": String(seconds),
    "svix-signature": `v1,${signature}`,
  };
}

/** A new Svix signing secret. */
export const newWebhookSecret = () => `whsec_${randomBytes(24).toString("base64")}`;
