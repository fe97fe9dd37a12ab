import type { Browser, BrowserContext } from "@playwright/test";

type StorageState = Awaited<ReturnType<BrowserContext["storageState"]>>;
type SessionClaims = {
  iat: number;
  exp: number;
  sid?: string;
  fva?: [number, number];
  v?: number;
  o?: { id: string };
  org_id?: string;
};

/** The active organization a session token names, in Clerk's version 2 (`o.id`) or version 1 (`org_id`) claims. */
export function tokenOrgId(claims: SessionClaims | null): string | null {
  if (!claims) return null;
  return (claims.v === 2 ? claims.o?.id : claims.org_id) ?? null;
}

/** The claims of the session token among `cookies` (its JWT payload, unverified: what the browser holds), or null. */
export function sessionTokenClaims(cookies: { name: string; value: string }[]): SessionClaims | null {
  const session = cookies.find((c) => c.name === "__session");
  if (!session) return null;
  return JSON.parse(Buffer.from(session.value.split(".")[1]!, "base64url").toString()) as SessionClaims;
}

/**
 * Opens `url` with JavaScript off and `state`'s cookies once their session
 * token is past its lifetime and `skewSeconds` of clock skew, so no clerk-js
 * can refresh it: the answer, and the document requests made on the way (the
 * handshake's among them). The caller closes `context`.
 */
export async function openAfterExpiry(browser: Browser, state: StorageState, url: string, skewSeconds: number) {
  const copied = sessionTokenClaims(state.cookies);
  if (!copied) throw new Error("no session token among the cookies");
  await new Promise((r) => setTimeout(r, Math.max(0, (copied.exp + skewSeconds + 1) * 1000 - Date.now())));
  const context = await browser.newContext({ javaScriptEnabled: false, storageState: state });
  try {
    const page = await context.newPage();
    const documents: string[] = [];
    page.on("request", (r) => r.isNavigationRequest() && documents.push(r.url()));
    const response = await page.goto(url);
    return { context, page, response, documents, copied };
  } catch (error) {
    await context.close();
    throw error;
  }
}
