import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { LIFETIMES_MS } from "../../app/lib/cache/org-caches.server";
import { armFault, backendApi, emulatorCalls, newTeam } from "../support/emulator-api";
import { scrapeMetrics } from "../support/metrics";
import { freePort, keysModeEnv, startServer, type RunningServer } from "../support/server";
import { createTestKeyPair, emulatorCookie, emulatorSession, sessionCookieHeader } from "../support/session";
import { newWebhookSecret, signedWebhook } from "../support/webhooks";

// POST /webhooks/clerk on one instance (local mode; the emulator's own
// webhooks off, so only the test's arrive). Whether a webhook invalidated
// anything shows in the Backend API calls of the page view that follows it.
const SECRET = newWebhookSecret();
const ORG = "org_seed_engines";
const renamed = { type: "organization.updated", data: { id: ORG, object: "organization", name: "Analytical Engines" } };
let server: RunningServer;
let cookie: string;
let adaId: string;
let metricsPort: number;

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startServer({
    CLERK_WEBHOOK_SIGNING_SECRET: SECRET,
    CLERK_EMULATOR_WEBHOOKS: "off",
    LOG_LEVEL: "silent",
    METRICS_PORT: String(metricsPort),
  });
  const ada = await emulatorSession(server.origin, "ada@example.com", ORG);
  cookie = sessionCookieHeader(ada.sessionToken, ada.clientUat);
  adaId = ada.userId;
});
afterAll(() => server.stop());

const total = (calls: Record<string, number>) => Object.values(calls).reduce((a, b) => a + b, 0);

/** The longest an instance keeps its own copy of an answer. */
const LOCAL_COPIES_MS = Math.max(...Object.values(LIFETIMES_MS));
/** When a view last asked Clerk something. */
let lastCostlyView = 0;

/** Backend API calls made by one view of a page (the organization's home, as Ada). */
async function callsOf(path = "/orgs/analytical-engines", person = cookie): Promise<number> {
  const before = total(await emulatorCalls(server.origin));
  const res = await fetch(`${server.origin}${path}`, { headers: { Cookie: person } });
  expect(res.status).toBe(200);
  await res.text();
  const calls = total(await emulatorCalls(server.origin)) - before;
  if (calls > 0) lastCostlyView = Date.now();
  return calls;
}
const callsOfAView = () => callsOf();

/**
 * Views until they cost Clerk nothing for a few seconds to come. What a view
 * reads from Clerk is kept here for up to 5 s (LIFETIMES_MS), and in the
 * shared store too, except the organizations' profiles that came with
 * Ada's memberships just after a change (kept here only, as the store's
 * generation had moved on): those are read again once, 5 s later. A check
 * that a view costs nothing must not meet that second read: so views once
 * the last costly one's copies have expired, until one costs nothing.
 */
async function settle() {
  for (let round = 0; round < 3; round++) {
    const wait = lastCostlyView + LOCAL_COPIES_MS + 100 - Date.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    if ((await callsOfAView()) === 0) return;
  }
}

function send(webhook: { body: string; headers: Record<string, string> }, headers: Record<string, string> = {}) {
  return fetch(`${server.origin}/webhooks/clerk`, {
    method: "POST",
    headers: { ...webhook.headers, ...headers },
    body: webhook.body,
  });
}

/** Sends `webhook` between two views whose caches are settled: whether it made the second view ask Clerk again. */
async function invalidates(webhook: Parameters<typeof send>[0], status: number, headers?: Record<string, string>) {
  await settle();
  expect(await callsOfAView()).toBe(0);
  expect((await send(webhook, headers)).status).toBe(status);
  return (await callsOfAView()) > 0;
}

describe("Clerk's webhooks", () => {
  it("a signed organization.updated makes the next view read the organization again", async () => {
    expect(await invalidates(signedWebhook(SECRET, renamed), 200)).toBe(true);
  });

  it("after a membership event, a token made before it authorizes nothing alone: the memberships are read", async () => {
    const memberships = async () =>
      (await emulatorCalls(server.origin))["bapi GET /v1/users/:id/organization_memberships"] ?? 0;
    await settle();
    const before = await memberships();
    expect(await callsOfAView()).toBe(0);
    const changed = {
      type: "organizationMembership.updated",
      data: { organization: { id: ORG }, public_user_data: { user_id: adaId } },
    };
    expect((await send(signedWebhook(SECRET, changed))).status).toBe(200);
    await callsOfAView();
    expect(await memberships()).toBe(before + 1);
  });

  it("an invitation event has only the invited person's invitations read again, found by the address", async () => {
    const invitationsOf = async () =>
      (await emulatorCalls(server.origin))["bapi GET /v1/users/:id/organization_invitations"] ?? 0;
    const grace = await emulatorCookie(server.origin, "grace@example.com");
    const orgs = (person: string) =>
      fetch(`${server.origin}/orgs`, { headers: { Cookie: person } }).then((r) => r.text());
    await Promise.all([orgs(cookie), orgs(grace)]);
    const before = await invitationsOf();
    const invited = {
      type: "organizationInvitation.created",
      data: { organization_id: ORG, email_address: "grace@example.com" },
    };
    expect((await send(signedWebhook(SECRET, invited))).status).toBe(200);
    await orgs(cookie);
    expect(await invitationsOf()).toBe(before);
    await orgs(grace);
    expect(await invitationsOf()).toBe(before + 1);
  });

  it("a person's update has only their organizations' member lists read again, found from their memberships", async () => {
    const bapi = backendApi(server.origin, server.dataDir);
    const other = await newTeam(bapi);
    const otherCookie = await emulatorCookie(server.origin, other.admin.email, other.org.id);
    const [adaOrg, otherOrg] = ["/orgs/analytical-engines", `/orgs/${other.org.slug}`];
    await callsOf(otherOrg, otherCookie);
    await settle();
    expect(await callsOf(adaOrg, cookie)).toBe(0);
    expect(await callsOf(otherOrg, otherCookie)).toBe(0);

    const updated = { type: "user.updated", data: { id: adaId, object: "user", first_name: "Augusta Ada" } };
    expect((await send(signedWebhook(SECRET, updated))).status).toBe(200);
    expect(await callsOf(adaOrg, cookie)).toBeGreaterThan(0);
    expect(await callsOf(otherOrg, otherCookie)).toBe(0);
  });

  it("the invitee lookup honours Clerk's 429: held back for Retry-After, the webhook gets 503 so Svix retries", async () => {
    const USERS = "bapi GET /v1/users";
    const lookups = async () => (await emulatorCalls(server.origin))[USERS] ?? 0;
    const invited = () =>
      signedWebhook(SECRET, {
        type: "organizationInvitation.created",
        data: { organization_id: ORG, email_address: "grace@example.com" },
      });
    await armFault(server.origin, { endpoint: USERS, mode: "error", status: 429, retryAfter: "2", times: 1 });
    expect((await send(invited())).status).toBe(503);
    const after429 = await lookups();
    expect((await send(invited())).status).toBe(503);
    expect(await lookups()).toBe(after429);
    await new Promise((r) => setTimeout(r, 2_100));
    expect((await send(invited())).status).toBe(200);
    expect(await lookups()).toBe(after429 + 1);
  });

  it("refuses a bad signature, a missing one, another secret's and an old timestamp with 400, invalidating nothing", async () => {
    const good = signedWebhook(SECRET, renamed);
    const tampered = { ...good, body: good.body.replace("Analytical", "Forged") };
    expect(await invalidates(tampered, 400)).toBe(false);
    expect(await invalidates(good, 400, { "svix-signature": "" })).toBe(false);
    expect(await invalidates(signedWebhook(newWebhookSecret(), renamed), 400)).toBe(false);
    const sixMinutesAgo = Math.floor(Date.now() / 1000) - 6 * 60;
    expect(await invalidates(signedWebhook(SECRET, renamed, { timestamp: sixMinutesAgo }), 400)).toBe(false);
  });

  it("applies a message once: the same svix-id again is acknowledged and ignored", async () => {
    const webhook = signedWebhook(SECRET, renamed);
    expect(await invalidates(webhook, 200)).toBe(true);
    expect(await invalidates(webhook, 200)).toBe(false);
    // Svix's retry of the same message: signed anew, with the same id.
    const retry = signedWebhook(SECRET, renamed, {
      id: webhook.headers["svix-id"],
      timestamp: Math.floor(Date.now() / 1000) + 1,
    });
    expect(await invalidates(retry, 200)).toBe(false);
  });

  it("refuses a body over 64 KB with 413 and acknowledges an event it has no use for, invalidating nothing", async () => {
    const large = signedWebhook(SECRET, { ...renamed, data: { ...renamed.data, padding: "x".repeat(70_000) } });
    expect(await invalidates(large, 413)).toBe(false);
    expect(await invalidates(signedWebhook(SECRET, { type: "email.created", data: { id: "ema_1" } }), 200)).toBe(false);
  });

  it("answers a signed body that is not a Clerk event with 400, invalidating nothing", async () => {
    const noData = signedWebhook(SECRET, {
      type: "organization.updated",
      data: null as unknown as Record<string, unknown>,
    });
    expect(await invalidates(noData, 400)).toBe(false);
    const noType = signedWebhook(SECRET, { type: 42 as unknown as string, data: { id: ORG } });
    expect(await invalidates(noType, 400)).toBe(false);
  });

  it("is exempt from the cross-site check only when signed", async () => {
    const crossSite = { Origin: "https://evil.example" };
    expect((await send(signedWebhook(SECRET, renamed), crossSite)).status).toBe(200);
    const unsigned = { body: "{}", headers: { "Content-Type": "application/json" } };
    expect((await send(unsigned, crossSite)).status).toBe(403);
    expect((await send(unsigned)).status).toBe(400);
  });

  it("counts each request by outcome (clerk_webhooks_total)", async () => {
    const count = async () => {
      const metrics = await scrapeMetrics(metricsPort);
      return (outcome: string) => metrics.get(`clerk_webhooks_total{outcome="${outcome}"}`) ?? 0;
    };
    const before = await count();
    const webhook = signedWebhook(SECRET, renamed);
    await send(webhook);
    await send(webhook);
    await send({ ...webhook, body: webhook.body.replace("Analytical", "Forged") });
    await send(signedWebhook(SECRET, { type: "email.created", data: {} }));
    const after = await count();
    for (const outcome of ["applied", "replayed", "refused", "ignored"])
      expect(after(outcome) - before(outcome)).toBe(1);
  });

  it("answers 404 where no signing secret is configured", async () => {
    const other = await startServer({ ...keysModeEnv(createTestKeyPair().publicKeyPem), LOG_LEVEL: "silent" });
    try {
      const res = await fetch(`${other.origin}/webhooks/clerk`, { method: "POST", ...signedWebhook(SECRET, renamed) });
      expect(res.status).toBe(404);
    } finally {
      await other.stop();
    }
  });
});
