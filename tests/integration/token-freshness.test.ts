import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { RATE_LIMITS } from "~/lib/http/rate-limit.server";
import { allowancesFor } from "~/lib/upstream/call-budget.server";
import { emulatorCalls } from "../support/emulator-api";
import { keysModeOn, startServer, type RunningServer } from "../support/server";
import { browserCookies, emulatorSession, emulatorToken, startHandshake } from "../support/session";
import { newWebhookSecret, signedWebhook } from "../support/webhooks";

// Who pays, by freshness (docs/security.md, "Who pays"): a session token
// that expired more than the rescue window ago (10 minutes), or whose session
// or person Clerk's webhooks said is gone, spends nothing of its owner's
// allowance: a leaked old token cannot lock its owner out. Keys mode, with a
// local-mode server standing in for Clerk, its calls counted.
const BUDGET = 200;
const ALLOWANCES = allowancesFor(BUDGET);
/** A payer's made-up nonces read in a minute: its allowance, or the misses it may make, the fewer. */
const MISSES = Math.min(ALLOWANCES.address, RATE_LIMITS["handshake-misses"].limit);
const HANDSHAKE_PAYLOAD = "bapi GET /v1/clients/handshake_payload";
const SESSION_CHECK = "bapi GET /v1/sessions/:id";
const REVOKE = "bapi POST /v1/sessions/:id/revoke";
const webhookSecret = newWebhookSecret();
let clerk: RunningServer;
let app: RunningServer;

beforeAll(async () => {
  clerk = await startServer({ LOG_LEVEL: "silent", CLERK_EMULATOR_WEBHOOKS: "off" });
  const { env, jwtKey } = keysModeOn(clerk, "token-freshness-session-secret-0123456789");
  app = await startServer({
    ...env,
    CLERK_JWT_KEY: jwtKey,
    CLERK_API_CALLS_PER_10S: String(BUDGET),
    CLERK_WEBHOOK_SIGNING_SECRET: webhookSecret,
    RATE_LIMIT_SCALE: "1",
    LOG_LEVEL: "silent",
  });
});

afterAll(async () => {
  for (const server of [app, clerk]) if (server) await server.stop();
});

const now = () => Math.floor(Date.now() / 1000);
let clients = 0;
const newClient = () => `198.51.100.${(clients += 1)}`;

async function callsDuring(endpoint: string, work: () => Promise<unknown>): Promise<number> {
  const before = (await emulatorCalls(clerk.origin))[endpoint] ?? 0;
  await work();
  return ((await emulatorCalls(clerk.origin))[endpoint] ?? 0) - before;
}

/** A person's browser whose session token expired `expiredSecondsAgo` ago. */
async function browserWithTokenExpired(email: string, expiredSecondsAgo: number) {
  const session = await emulatorSession(clerk.origin, email);
  const exp = now() - expiredSecondsAgo;
  const token = emulatorToken(clerk.dataDir, session, { iat: exp - 60, exp });
  return { session, cookie: browserCookies(session, token, exp - 120) };
}

/**
 * A handshake return with a made-up nonce, bound to a browser holding
 * `cookie` (the attacker's own, holding the leaked token): its status.
 */
async function madeUpReturn(cookie: string, client: string, n: number) {
  const headers = { "X-Forwarded-For": client };
  const bound = await startHandshake(app.origin, "/orgs", { cookie, headers });
  const res = await fetch(`${app.origin}${bound.returnPath(`hsn_leaked${n}0000000000000000`)}`, {
    headers: { ...headers, Accept: "text/html", Cookie: `${cookie}; ${bound.stateCookie}` },
    redirect: "manual",
  });
  await res.arrayBuffer();
  return res.status;
}

/** The person's own real handshake return, from their own address: whether it signed them in. */
async function ownReturn(session: Awaited<ReturnType<typeof emulatorSession>>, cookie: string) {
  const headers = { "X-Forwarded-For": newClient() };
  const started = await startHandshake(app.origin, "/orgs", { cookie, headers });
  const handshake = await fetch(
    `${clerk.origin}/__clerk/v1/client/handshake?redirect_url=${encodeURIComponent(`${clerk.origin}/orgs`)}&format=nonce`,
    { headers: { Cookie: `__client=${session.clientId}` }, redirect: "manual" },
  );
  const nonce = new URL(handshake.headers.get("location")!).searchParams.get("__clerk_handshake_nonce")!;
  const back = await fetch(`${app.origin}${started.returnPath(nonce)}`, {
    headers: { ...headers, Accept: "text/html", Cookie: `${cookie}; ${started.stateCookie}` },
    redirect: "manual",
  });
  return { status: back.status, signedIn: back.headers.getSetCookie().some((c) => /^__session=ey/.test(c)) };
}

/**
 * `count` made-up returns with the browser's `cookie`, each from `client(n)`: the handshake payloads
 * Clerk was asked for, and the statuses.
 */
async function madeUpReturns(cookie: string, count: number, client: (n: number) => string) {
  const statuses: number[] = [];
  const reads = await callsDuring(HANDSHAKE_PAYLOAD, async () => {
    for (let n = 0; n < count; n++) statuses.push(await madeUpReturn(cookie, client(n), n));
  });
  return { reads, statuses, refused: statuses.filter((s) => s === 429).length };
}

async function sendWebhook(type: string, data: Record<string, unknown>) {
  const { body, headers } = signedWebhook(webhookSecret, { type, data });
  const res = await fetch(`${app.origin}/webhooks/clerk`, { method: "POST", headers, body });
  expect(res.status).toBe(200);
}

describe("who pays, by freshness", () => {
  it("a token expired 19 minutes ago, sent from many addresses, spends nothing of its owner's: their own return still signs them in", async () => {
    const victim = await browserWithTokenExpired("grace@example.com", 19 * 60);
    // More than the owner's whole allowance, each from an address of its own (each address can pay for one).
    const sent = ALLOWANCES.person + 10;
    const { reads, statuses } = await madeUpReturns(victim.cookie, sent, newClient);
    // Charged to the addresses: every one read (none was past its own allowance)…
    expect(reads).toBe(sent);
    expect(statuses.filter((s) => s >= 500)).toEqual([]);
    // …and the owner, whose token is a minute old, signs in through the handshake as ever.
    const owner = await browserWithTokenExpired("grace@example.com", 60);
    expect(await ownReturn(owner.session, owner.cookie)).toEqual({ status: 307, signedIn: true });
  });

  it("from one address, a leaked old token is held to that address's allowance (and its misses)", async () => {
    const leaked = await browserWithTokenExpired("ada@example.com", 15 * 60);
    const client = newClient();
    const { reads, refused } = await madeUpReturns(leaked.cookie, ALLOWANCES.address + 5, () => client);
    expect(reads).toBe(MISSES);
    expect(refused).toBe(ALLOWANCES.address + 5 - MISSES);
  });

  it("a person's made-up nonces are read at most 3 times a minute, from any number of addresses: a crowd of accounts spends little", async () => {
    const sybil = await browserWithTokenExpired("katherine@example.com", 60);
    const { reads, refused } = await madeUpReturns(sybil.cookie, 12, newClient);
    expect(reads).toBe(RATE_LIMITS["handshake-misses"].limit);
    expect(refused).toBe(12 - reads);
  });

  it("a session Clerk said ended: its stale token's form is refused and its sign-out ends nothing, without a call", async () => {
    const ended = await browserWithTokenExpired("grace@example.com", 60);
    await sendWebhook("session.ended", { object: "session", id: ended.session.sessionId, status: "ended" });
    const form = {
      method: "POST",
      headers: {
        Cookie: ended.cookie,
        "Content-Type": "application/x-www-form-urlencoded",
        Origin: app.origin,
        Accept: "text/html",
        "X-Forwarded-For": newClient(),
      },
      redirect: "manual" as const,
    };
    const checks = await callsDuring(SESSION_CHECK, async () => {
      const res = await fetch(`${app.origin}/orgs/new`, { ...form, body: "name=Never&slug=" });
      expect([res.status, res.headers.get("location")]).toEqual([302, expect.stringMatching(/^\/sign-in/)]);
    });
    expect(checks).toBe(0);
    const revokes = await callsDuring(REVOKE, async () => {
      const res = await fetch(`${app.origin}/resources/sign-out`, { ...form, body: "" });
      expect(res.status).toBeLessThan(500);
    });
    expect(revokes).toBe(0);
  });

  it("a person Clerk said was deleted: their recent token's handshake returns are the address's to pay", async () => {
    const deleted = await browserWithTokenExpired("alan@example.com", 60);
    await sendWebhook("user.deleted", { object: "user", id: deleted.session.userId, deleted: true });
    const client = newClient();
    const { reads, refused } = await madeUpReturns(deleted.cookie, ALLOWANCES.address + 3, () => client);
    expect(reads).toBe(MISSES);
    expect(refused).toBe(ALLOWANCES.address + 3 - MISSES);
  });
});
