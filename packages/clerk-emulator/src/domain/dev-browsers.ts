import { createPublicKey, verify } from "node:crypto";
import { newId } from "../state/ids";
import type { DeepReadonly, DevBrowserRecord, Store } from "../state/store";
import { ApiError } from "./errors";
import { signJwt, type SigningKey } from "./tokens";

/**
 * A development instance's browsers. Clerk's Frontend API lives on another
 * site than a development app (`*.clerk.accounts.dev` against `localhost`), so
 * its `__client` cookie would be a third-party cookie: instead clerk-js asks
 * for a dev browser once (`POST /v1/dev_browser`), keeps it in a cookie of the
 * app's own (`__clerk_db_jwt`), and sends it with every Frontend API call as
 * the `__clerk_db_jwt` query parameter. The dev browser names the client.
 *
 * Clerk's answer is its dev browser record: an `id` (`dvb_…`) and a `token`,
 * a JWT its instance signs with `{"dev": <id>}`. clerk-js keeps the `id`
 * (devBrowser.ts `setup` reads `data.id` since clerk/javascript PR #3506, in
 * clerk-js 5 and 6), older clients and scripts the `token`; Clerk takes
 * either, and so does the emulator.
 */

/** The query parameter (and the app's cookie) that carries the dev browser. */
export const DEV_BROWSER_PARAM = "__clerk_db_jwt";

/** Its older name, which Clerk's OpenAPI description still gives its `DevBrowser` scheme (and scripts send). */
export const LEGACY_DEV_BROWSER_PARAM = "__dev_session";

/** Clerk's answer to a dev browser it does not know (or a request without one, on a development instance). */
export function devBrowserUnauthenticated(): ApiError {
  return new ApiError(
    401,
    "dev_browser_unauthenticated",
    "Browser unauthenticated",
    undefined,
    "Unable to authenticate this browser for your development instance. Check your Clerk cookies and try again. If the issue persists reach out to support@clerk.com.",
  );
}

/**
 * How many dev browsers the instance keeps: anyone who reaches the Frontend API can ask for one
 * (and a handshake without one makes one), so past this the oldest goes (that browser starts over
 * signed out, as clerk-js does after `dev_browser_unauthenticated`).
 */
export const MAX_DEV_BROWSERS = 10_000;

export function createDevBrowser(store: Store): DevBrowserRecord {
  return store.write((state) => {
    const now = Date.now();
    const devBrowser: DevBrowserRecord = { id: newId("dvb"), clientId: null, createdAt: now, updatedAt: now };
    state.devBrowsers.push(devBrowser);
    if (state.devBrowsers.length > MAX_DEV_BROWSERS) state.devBrowsers.shift();
    return devBrowser;
  });
}

/** The JWT form of a dev browser, signed with the instance's key (Clerk's `token`). */
export function devBrowserToken(key: SigningKey, devBrowser: { id: string; createdAt: number }): string {
  return signJwt(key, { dev: devBrowser.id, iat: Math.floor(devBrowser.createdAt / 1000) });
}

/** The `dev` claim of a JWT the instance's key signed, else null (malformed, another key, another algorithm). */
function signedDevBrowserId(key: SigningKey, jwt: string): string | null {
  const [header, payload, signature] = jwt.split(".");
  if (!header || !payload || signature === undefined) return null;
  try {
    const jose = JSON.parse(Buffer.from(header, "base64url").toString("utf8")) as { alg?: unknown };
    if (jose.alg !== "RS256") return null;
    const signed = Buffer.from(`${header}.${payload}`);
    if (!verify("RSA-SHA256", signed, createPublicKey(key.privateKey), Buffer.from(signature, "base64url")))
      return null;
    const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8")) as { dev?: unknown };
    return typeof claims.dev === "string" ? claims.dev : null;
  } catch {
    return null;
  }
}

/** The dev browser `value` names, by its id or by its signed token; null when there is none such. */
export function findDevBrowser(
  store: Store,
  key: SigningKey,
  value: string | null,
): DeepReadonly<DevBrowserRecord> | null {
  if (!value) return null;
  const id = value.startsWith("dvb_") ? value : signedDevBrowserId(key, value);
  if (!id) return null;
  return store.state.devBrowsers.find((d) => d.id === id) ?? null;
}

/** The browser's client from now on (its first, or one a handshake or sign-in gave it). */
export function attachClient(store: Store, devBrowser: { id: string }, client: { id: string }): void {
  store.write((state) => {
    const record = state.devBrowsers.find((d) => d.id === devBrowser.id);
    if (!record) return;
    record.clientId = client.id;
    record.updatedAt = Date.now();
  });
}
