/**
 * A real person's handshake, as a browser without JavaScript makes it: a
 * document GET with a session token past its lifetime, the redirect to
 * Clerk's Frontend API (the publishable key's host, which DNS would send to
 * Clerk: here, the stand-in's /__clerk), Clerk's redirect back with a nonce,
 * the app's answer setting fresh cookies, and the page itself. Two cookie
 * jars, one per site, as a browser keeps them.
 */
import { randomBytes } from "node:crypto";
import { beginHandshake, emulatorSession, emulatorToken } from "../tests/support/session";

/** The Frontend API's host in the publishable key the bench's instances use (bench/servers.ts `clerkKeys`). */
const FRONTEND_API_HOST = "clerk.emulator.invalid";
const MAX_HOPS = 6;

type Jar = Map<string, string>;

const header = (jar: Jar) => [...jar].map(([name, value]) => `${name}=${value}`).join("; ");

function keep(jar: Jar, setCookies: string[]) {
  for (const line of setCookies) {
    const [pair] = line.split(";");
    const at = pair!.indexOf("=");
    const [name, value] = [pair!.slice(0, at).trim(), pair!.slice(at + 1)];
    if (/max-age=0\b/i.test(line) || value === "") jar.delete(name);
    else jar.set(name, value);
  }
}

export type HandshakeResult = {
  /** Back on the page it asked for, 200, signed in (a signed-out /orgs is a redirect to sign-in). */
  completed: boolean;
  /** Each hop: "app 307", "clerk 307", …, to show where one stopped. */
  hops: string[];
};

/**
 * One browser of `email`'s (a new session, its organization active) whose
 * token expired a minute ago opens `path` on `origin`, following every
 * redirect; `address` is its client address (X-Forwarded-For, from loopback).
 */
export async function realHandshake(
  clerk: string,
  dataDir: string,
  origin: string,
  { email, orgId, address, path = "/orgs" }: { email: string; orgId: string; address: string; path?: string },
): Promise<HandshakeResult> {
  const session = await emulatorSession(clerk, email, orgId);
  const exp = Math.floor(Date.now() / 1000) - 60;
  const expired = emulatorToken(dataDir, session, { iat: exp - 60, exp });
  const app: Jar = new Map([
    ["__session", expired],
    ["__client_uat", String(exp - 120)],
  ]);
  const frontendApi: Jar = new Map([["__client", session.clientId]]);
  const hops: string[] = [];
  let next = new URL(path, origin);
  for (let hop = 0; hop < MAX_HOPS; hop++) {
    const toClerk = next.host === FRONTEND_API_HOST;
    const target = toClerk ? new URL(`${clerk}/__clerk${next.pathname}${next.search}`) : next;
    const jar = toClerk ? frontendApi : app;
    const res = await fetch(target, {
      headers: {
        Cookie: header(jar),
        Accept: "text/html",
        "Sec-Fetch-Dest": "document",
        "Sec-Fetch-Mode": "navigate",
        ...(toClerk ? {} : { "X-Forwarded-For": address }),
      },
      redirect: "manual",
    });
    await res.arrayBuffer();
    keep(jar, res.headers.getSetCookie());
    hops.push(`${toClerk ? "clerk" : "app"} ${res.status}`);
    const location = res.headers.get("location");
    if (res.status < 300 || res.status >= 400 || !location) {
      return { completed: res.status === 200 && !toClerk && next.pathname === path, hops };
    }
    next = new URL(location, target);
  }
  return { completed: false, hops };
}

const documentGet = (address: string) => ({
  Accept: "text/html",
  "Sec-Fetch-Dest": "document",
  "Sec-Fetch-Mode": "navigate",
  "X-Forwarded-For": address,
});

/**
 * An attacker's handshake return with a nonce Clerk never issued, bound as a
 * browser's own return is (app/lib/clerk/handshake-binding.server.ts): a
 * document GET of `path` with `cookie` (by default Clerk's client and no
 * session token, which the app sends through the handshake; or a leaked
 * token's cookies) gets the app's 307 to Clerk and its state cookie, and the
 * browser comes back at once with the state, its cookie and the made-up
 * nonce, from `address`. The return's status; a first hop that started no
 * handshake is counted by its own ("no handshake: 200"). Both answers are
 * read to the end (an unread body holds its connection).
 */
export async function madeUpReturn(
  origin: string,
  { cookie = "__client_uat=1", address, path = "/orgs" }: { cookie?: string; address: string; path?: string },
): Promise<number | string> {
  const started = await beginHandshake(origin, path, { cookie, headers: documentGet(address) });
  if (!started.ok) return started.why;
  const nonce = `hsn_${randomBytes(16).toString("hex")}`;
  const res = await fetch(new URL(started.returnPath(nonce), origin), {
    headers: { ...documentGet(address), Cookie: `${cookie}; ${started.stateCookie}` },
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}
