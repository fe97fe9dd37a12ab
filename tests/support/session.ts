import { generateKeyPairSync, sign, type KeyObject } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import {
  sessionClaims,
  signingKeyFromPem,
  signJwt,
  type SessionClaimsInput,
  type SessionTokenVersion,
  type SigningKey,
} from "clerk-emulator/testing";

/** A test RSA-2048 key pair, like a Clerk instance's. */
export function createTestKeyPair() {
  const { privateKey, publicKey } = generateKeyPairSync("rsa", { modulusLength: 2048 });
  return { privateKey, publicKeyPem: publicKey.export({ type: "spki", format: "pem" }).toString() };
}

export type MintOptions = {
  privateKey: KeyObject;
  userId: string;
  sessionId?: string;
  name?: string;
  /** Seconds from now; negative for an already expired token. */
  expiresIn?: number;
  issuedAt?: number;
  org?: { id: string; slug: string; role: string };
  kid?: string;
  /** Clerk's session token format: 2 (as Clerk issues them) unless a test asks for 1. */
  version?: SessionTokenVersion;
};

const b64 = (v: string | Buffer) => Buffer.from(v).toString("base64url");

/** An RS256 Clerk session token (version 2 claims unless asked) for real @clerk/remix verification. */
export function mintSessionToken(o: MintOptions): { token: string; iat: number } {
  const iat = o.issuedAt ?? Math.floor(Date.now() / 1000);
  const claims: Record<string, unknown> = {
    ...sessionClaims({
      issuer: "https://clerk.teamwork.invalid",
      sessionId: o.sessionId ?? "sess_test",
      userId: o.userId,
      name: o.name ?? null,
      imageUrl: null,
      org: o.org ?? null,
      ttlSeconds: 60,
      version: o.version,
    }),
    exp: iat + (o.expiresIn ?? 60),
    iat,
    nbf: iat - 10,
  };
  const header = b64(JSON.stringify({ alg: "RS256", typ: "JWT", kid: o.kid ?? "ins_test" }));
  const payload = b64(JSON.stringify(claims));
  const signature = sign("RSA-SHA256", Buffer.from(`${header}.${payload}`), o.privateKey);
  return { token: `${header}.${payload}.${b64(signature)}`, iat };
}

/** The cookies a signed-in browser sends: `__session` and a `__client_uat` not newer than the token. */
export function sessionCookieHeader(token: string, iat: number): string {
  return `__session=${token}; __client_uat=${iat}`;
}

/** A seeded user's signed-in Cookie header, from a session the emulator's control API makes. */
export async function emulatorCookie(origin: string, email: string, organizationId?: string): Promise<string> {
  const s = await emulatorSession(origin, email, organizationId);
  return sessionCookieHeader(s.sessionToken, s.clientUat);
}

/** Asks the emulator's control API for a signed-in session of a seeded user. */
export async function emulatorSession(origin: string, email: string, organizationId?: string) {
  const res = await fetch(`${origin}/__clerk/_emulator/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email, organizationId }),
  });
  if (!res.ok) throw new Error(`emulator session failed: ${res.status}`);
  return (await res.json()) as {
    userId: string;
    sessionId: string;
    clientId: string;
    sessionToken: string;
    clientUat: number;
    /** What a real sign-in leaves in the browser (`__client`, `__client_uat`, `__session`), for `context.addCookies`. */
    cookies: { name: string; value: string; path: string; httpOnly: boolean; sameSite: "Lax" }[];
  };
}

type EmulatorSession = Awaited<ReturnType<typeof emulatorSession>>;

/**
 * A session token for an emulator session with the times (seconds since the
 * epoch), active organization and claims a test chooses, in Clerk's version 2
 * format unless `version` says 1, signed with the server's emulator key
 * from its data folder (or `key`, another one, for a bad signature).
 */
export function emulatorToken(
  dataDir: string,
  session: Pick<EmulatorSession, "sessionId" | "userId">,
  times: { iat: number; nbf?: number; exp: number },
  {
    key,
    claims = {},
    org = null,
    version,
  }: {
    key?: SigningKey;
    claims?: Record<string, unknown>;
    org?: SessionClaimsInput["org"];
    version?: SessionTokenVersion;
  } = {},
): string {
  const signingKey =
    key ?? signingKeyFromPem(readFileSync(join(dataDir, "clerk-emulator-key.pem"), "utf8"), "ins_emulator");
  const base = sessionClaims({
    issuer: "https://clerk.emulator.invalid",
    sessionId: session.sessionId,
    userId: session.userId,
    name: null,
    imageUrl: null,
    org,
    ttlSeconds: 60,
    version,
  });
  return signJwt(signingKey, { ...base, nbf: times.iat - 10, ...times, ...claims });
}

/** The cookies of the browser the emulator session is in, with `token` as its session token. */
export function browserCookies(
  session: Pick<EmulatorSession, "clientId" | "clientUat">,
  token: string,
  clientUat?: number,
) {
  return `__session=${token}; __client_uat=${clientUat ?? session.clientUat}; __client=${session.clientId}`;
}

type StoredCookie = { name: string; value: string; path: string };

/**
 * A browser without JavaScript on `origin`, starting with `cookie` (a Cookie
 * header): it keeps every cookie the answers set (by name and path, gone
 * at `Max-Age=0`) and follows redirects on the origin as a browser follows
 * a document's (303 to a GET, 307 keeping the method), Clerk's handshake at
 * `/__clerk` among them. `navigate` gives the last answer and each hop
 * (`"GET /path 307"`); a redirect off the origin is an error.
 */
export function documentBrowser(origin: string, cookie: string) {
  const jar = new Map<string, StoredCookie>();
  const keep = (c: StoredCookie) => jar.set(`${c.name};${c.path}`, c);
  for (const pair of cookie.split(";").map((p) => p.trim())) {
    const eq = pair.indexOf("=");
    if (eq > 0) keep({ name: pair.slice(0, eq), value: pair.slice(eq + 1), path: "/" });
  }
  const sentTo = (path: string) =>
    [...jar.values()]
      .filter((c) => c.path === "/" || path === c.path || path.startsWith(`${c.path.replace(/\/$/, "")}/`))
      .map((c) => `${c.name}=${c.value}`)
      .join("; ");
  const store = (res: Response) => {
    for (const header of res.headers.getSetCookie()) {
      const [pair = "", ...attributes] = header.split(";").map((p) => p.trim());
      const eq = pair.indexOf("=");
      const attribute = (name: string) =>
        attributes.find((a) => a.toLowerCase().startsWith(`${name}=`))?.slice(name.length + 1);
      const stored = { name: pair.slice(0, eq), value: pair.slice(eq + 1), path: attribute("path") ?? "/" };
      const expires = attribute("expires");
      const gone = attribute("max-age") === "0" || (expires !== undefined && Date.parse(expires) <= Date.now());
      if (gone) jar.delete(`${stored.name};${stored.path}`);
      else keep(stored);
    }
  };
  async function navigate(
    path: string,
    { method = "GET", form }: { method?: string; form?: Record<string, string> } = {},
  ) {
    const hops: string[] = [];
    let url = new URL(path, origin);
    let body = method === "POST" ? new URLSearchParams(form).toString() : undefined;
    for (let hop = 0; hop < 12; hop++) {
      const res = await fetch(url, {
        method,
        headers: {
          Cookie: sentTo(url.pathname),
          Accept: "text/html",
          "Sec-Fetch-Dest": "document",
          "Sec-Fetch-Mode": "navigate",
          ...(body === undefined ? {} : { "Content-Type": "application/x-www-form-urlencoded", Origin: origin }),
        },
        body,
        redirect: "manual",
      });
      hops.push(`${method} ${url.pathname}${url.search} ${res.status}`);
      store(res);
      const location = res.headers.get("location");
      if (res.status < 300 || res.status > 399 || !location) return { res, hops };
      url = new URL(location, url);
      if (url.origin !== origin) throw new Error(`sent off ${origin}, to ${url}`);
      if (res.status !== 307 && res.status !== 308) [method, body] = ["GET", undefined];
    }
    throw new Error(`too many redirects:\n${hops.join("\n")}`);
  }
  return { navigate, cookies: () => [...jar.values()] };
}

/** A handshake the app started (beginHandshake), or why it started none. */
export type HandshakeStart =
  | {
      ok: true;
      /** Clerk's handshake URL. */
      handshake: URL;
      /** The app's state, in the URL the browser comes back to. */
      state: string;
      /** The state's cookie, `name=value`: it binds the return to this browser. */
      stateCookie: string;
      /** The URL the browser comes back to with `nonce`. */
      returnPath: (nonce: string) => string;
    }
  | { ok: false; why: string };

/**
 * The first hop of a handshake at the app, for a browser with `cookie` (by
 * default one that holds Clerk's client but no session token, which Clerk's
 * SDK sends through the handshake), its answer read to the end (an unread
 * body holds its connection): what binds the return to this browser
 * (app/lib/clerk/handshake-binding.server.ts), or why there is none.
 */
export async function beginHandshake(
  origin: string,
  path: string,
  { cookie = "__client_uat=1", headers = {} as Record<string, string> } = {},
): Promise<HandshakeStart> {
  const res = await fetch(new URL(path, origin), {
    headers: { Cookie: cookie, Accept: "text/html", ...headers },
    redirect: "manual",
  });
  await res.arrayBuffer();
  const location = res.headers.get("location");
  if (res.status !== 307 || !location) return { ok: false, why: `no handshake: ${res.status}` };
  const handshake = new URL(location, origin);
  const back = new URL(handshake.searchParams.get("redirect_url") ?? "", origin);
  const state = back.searchParams.get("__handshake_state") ?? "";
  const stateCookie = res.headers
    .getSetCookie()
    .map((c) => c.split(";")[0] ?? "")
    .find((c) => c.startsWith(`__hs_${state}=`));
  if (!state || !stateCookie) return { ok: false, why: "no handshake state" };
  const returnPath = (nonce: string) => {
    const url = new URL(back);
    url.searchParams.set("__clerk_handshake_nonce", nonce);
    return url.pathname + url.search;
  };
  return { ok: true, handshake, state, stateCookie, returnPath };
}

/** beginHandshake, for a test: the handshake the app started, or an error saying why there is none. */
export async function startHandshake(...args: Parameters<typeof beginHandshake>) {
  const started = await beginHandshake(...args);
  if (!started.ok) throw new Error(`${args[1]}: ${started.why}`);
  return started;
}
