import { once } from "node:events";
import type { AddressInfo } from "node:net";
import express from "express";
import { NO_METRICS } from "../../app/lib/metrics.server";
import { createFleetCaches, type FleetCaches } from "../../app/lib/cache/fleet.server";
import type { OrgCaches } from "../../app/lib/cache/org-caches.server";
import type { SharedCache } from "../../app/lib/cache/shared-cache.server";
import { clerkWebhooks, WEBHOOK_PATH } from "../../server/clerk-webhooks";
import type { Coordination } from "../../server/coordination";
import type { signedWebhook } from "./webhooks";

// What the tests of the state instances share (caches, coordination,
// webhooks), on one redis-server or a cluster, have in common.

/** Waits until `check` holds, failing after `ms`. */
export async function until(check: () => boolean | Promise<boolean>, ms = 2_000) {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("not in time");
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * A read from Clerk the test answers (or fails) when it wants, counting how
 * often Clerk was asked. `waitFor` is how `asked` waits (a test on a
 * controlled clock turns the event loop instead of polling in real time).
 */
export function clerkStandIn(waitFor: (ready: () => boolean) => Promise<void> = (ready) => until(ready)) {
  let calls = 0;
  const pending: { resolve: (value: string) => void; reject: (error: unknown) => void }[] = [];
  return {
    load: () => {
      calls++;
      return new Promise<string>((resolve, reject) => pending.push({ resolve, reject }));
    },
    calls: () => calls,
    answer: (value: string) => pending.shift()!.resolve(value),
    fail: (error: unknown) => pending.shift()!.reject(error),
    answerAll: (value: string) => pending.splice(0).forEach(({ resolve }) => resolve(value)),
    /** Resolves once a read is waiting for its answer. */
    asked: () => waitFor(() => pending.length > 0),
  };
}

/** An id no other test (or run) uses: `<kind>_<time><random>`. */
export const unique = (kind: string) => `${kind}_${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;

/** An organization's profile as the caches keep it. */
export const profile = (id: string, name: string) => ({ id, name, slug: null, imageUrl: null, membersCount: 1 });

/** A page of a member directory, told apart by its total. */
export const page = (name: string) => ({ members: [], total: name.length });

/** A read from Clerk that must not happen: the copy should have been kept. */
export const notAsked = async (): Promise<never> => {
  throw new Error("asked Clerk: the copy was not kept");
};

/** A read of `key` from Clerk through `cache`, held open until the test answers it. */
export async function readUnderWay<Value>(cache: SharedCache<Value>, key: string) {
  let began: () => void = () => undefined;
  let answer: (value: Value) => void = () => undefined;
  const begun = new Promise<void>((resolve) => (began = resolve));
  const result = cache.get(key, () => {
    began();
    return new Promise<Value>((resolve) => (answer = resolve));
  });
  await begun;
  return { answer: (value: Value) => (answer(value), result) };
}

/**
 * An instance's caches in the fleet, as server/services.ts makes them: they
 * hear the other instances' changes on `coordination`'s channel, and tell
 * theirs. (No Clerk behind them: no one has an address or an organization.)
 */
export const inFleet = (caches: OrgCaches, coordination: Coordination): FleetCaches =>
  createFleetCaches(caches, {
    channel: coordination,
    usersWithEmail: async () => [],
    organizationsOf: async () => [],
  });

/**
 * `POST /webhooks/clerk` on the instance of `caches` and `coordination`, on a
 * small server of its own (closed through `closing`): a delivery's status and
 * message. `organizationsOf` stands in for Clerk's answer.
 */
export async function webhookEndpoint(
  {
    caches,
    coordination,
    secret,
    closing,
  }: { caches: OrgCaches; coordination: Coordination; secret: string; closing: (() => unknown)[] },
  organizationsOf = async (_userId: string) => [] as string[],
) {
  // (The instance's own fleet hears the others; this one only tells them.)
  const { ofEvent } = createFleetCaches(caches, {
    channel: { tell: (keys) => coordination.tell(keys), onHeard: () => undefined },
    usersWithEmail: async () => [],
    organizationsOf,
  });
  const app = express();
  app.post(WEBHOOK_PATH, ...clerkWebhooks({ secret, claims: coordination, ofEvent, metrics: NO_METRICS }));
  const server = app.listen(0, "127.0.0.1");
  await once(server, "listening");
  closing.push(() => (server.closeAllConnections(), new Promise((done) => server.close(done))));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}${WEBHOOK_PATH}`;
  return async ({ body, headers }: ReturnType<typeof signedWebhook>) => {
    const res = await fetch(url, { method: "POST", headers, body });
    return { status: res.status, message: ((await res.json()) as { message: string }).message };
  };
}
