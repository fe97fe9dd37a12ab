import { describe, expect, it } from "vitest";
import {
  allowancesFor,
  BUDGET_WINDOW_MS,
  clerkCallsPer10s,
  countsAgainstClerk,
  createCallBudget,
  memoryWindow,
  type CallBudget,
  type Refusal,
  type SharedCallWindow,
} from "~/lib/upstream/call-budget.server";
import { callUpstream, OverAllowanceError, UpstreamUnavailableError } from "~/lib/upstream/policy.server";
import { overBudget } from "~/lib/upstream/request-scope.server";
import { addressPays, personPays } from "~/lib/upstream/payer.server";
import type { AttemptOutcome } from "~/lib/metrics.server";

// The fleet's budget of Clerk calls (app/lib/upstream/call-budget.server.ts),
// on a clock the test moves: Clerk's limit is a sliding window, so the budget
// must be one too (a fixed window would allow twice the budget across its edge).
function clock(start = 1_000_000) {
  let time = start;
  return { now: () => time, advance: (ms: number) => (time += ms) };
}

const READ = "clerk.organizations.getOrganization";
const ADA = personPays("user_ada");

/** What an attempt at `upstream` met: "ok" (a call taken), or the Retry-After (s) of the 503 it is refused with. */
async function outcome(budget: CallBudget, upstream = READ): Promise<"ok" | number> {
  try {
    await overBudget({ clerkBudget: budget }, upstream, ADA);
    return "ok";
  } catch (error) {
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    return (error as UpstreamUnavailableError).retryAfterSeconds;
  }
}

/** A shared window that counts the fleet's calls only (the payers' windows are another test's). */
const fleetOnly = (waitMs: number): Refusal | null => (waitMs === 0 ? null : { waitMs, by: "fleet" });

describe("the budget's size", () => {
  const key = (kind: string) => `pk_${kind}_${Buffer.from("clerk.example.com$").toString("base64")}`;

  it("is 90% of Clerk's limit for the key's kind, the variable's when set, none in local mode", () => {
    expect(clerkCallsPer10s({ CLERK_PUBLISHABLE_KEY: key("live") })).toBe(900);
    expect(clerkCallsPer10s({ CLERK_PUBLISHABLE_KEY: key("test") })).toBe(90);
    expect(clerkCallsPer10s({ CLERK_PUBLISHABLE_KEY: key("live"), CLERK_API_CALLS_PER_10S: 2_700 })).toBe(2_700);
    expect(clerkCallsPer10s({ CLERK_PUBLISHABLE_KEY: key("test"), CLERK_LOCAL_EMULATOR: "1" })).toBeNull();
    expect(
      clerkCallsPer10s({ CLERK_PUBLISHABLE_KEY: key("test"), CLERK_LOCAL_EMULATOR: "1", CLERK_API_CALLS_PER_10S: 5 }),
    ).toBe(5);
  });

  it("counts every Backend API call but the JWKS, which Clerk does not limit, and nothing else", () => {
    expect(countsAgainstClerk(READ)).toBe(true);
    expect(countsAgainstClerk("clerk.sessions.revokeSession")).toBe(true);
    expect(countsAgainstClerk("clerk.jwks.getJwks")).toBe(false);
    expect(countsAgainstClerk("posthog.ingest")).toBe(false);
  });
});

describe("the budget's window", () => {
  it("is Clerk's 10 s and a second: a call that reaches Clerk up to a second after it was counted still stays within the budget", async () => {
    const time = clock();
    const budget = createCallBudget({ limit: 1, now: time.now });
    expect(await outcome(budget)).toBe("ok");
    time.advance(10_000);
    // Counted at 0 but arriving at up to 1 s: Clerk's window from 0.5 s to 10.5 s may still hold it.
    expect(await outcome(budget)).toBe(1);
    time.advance(1_000);
    expect(await outcome(budget)).toBe("ok");
  });
});

describe("the sliding window", () => {
  it("allows `limit` calls in any window, frees each exactly when it leaves, and never more across a window's edge", () => {
    const window = memoryWindow(3, 10_000);
    expect([window.take(0), window.take(4_000), window.take(9_000)]).toEqual([0, 0, 0]);
    // Full: the wait is until the oldest (t=0) leaves.
    expect(window.take(9_500)).toBe(500);
    expect(window.take(10_000)).toBe(0);
    // A fixed window would have started afresh at 10 s and allowed two more here.
    expect(window.take(10_001)).toBe(3_999);
    expect(window.take(13_999)).toBe(1);
    expect(window.take(14_000)).toBe(0);
  });
});

describe("createCallBudget", () => {
  it("past the budget throws the catalogue's 503 error with Retry-After until a call is free, then lets calls go again", async () => {
    const time = clock();
    const budget = createCallBudget({ limit: 2, windowMs: 10_000, now: time.now });
    expect(await outcome(budget)).toBe("ok");
    time.advance(3_000);
    expect(await outcome(budget)).toBe("ok");
    time.advance(1_000);
    // The oldest leaves the window 6 s from now.
    expect(await outcome(budget)).toBe(6);
    expect(await outcome(budget, "clerk.users.getUserList")).toBe(6);
    // The JWKS is never refused (session checks need it).
    expect(await outcome(budget, "clerk.jwks.getJwks")).toBe("ok");
    time.advance(5_500);
    expect(await outcome(budget)).toBe(1);
    time.advance(500);
    expect(await outcome(budget)).toBe("ok");
    expect(await outcome(budget)).toBe(3);
  });

  it("counts in the shared window, and once it is spent asks it nothing more until a call can be free", async () => {
    const time = clock();
    const asked: number[] = [];
    const fleet = memoryWindow(3, 10_000);
    const shared: SharedCallWindow = { take: async (now) => (asked.push(now), fleetOnly(fleet.take(now))) };
    // Two instances of one fleet: what one spends, the other cannot.
    const a = createCallBudget({ limit: 3, windowMs: 10_000, shared, now: time.now });
    const b = createCallBudget({ limit: 3, windowMs: 10_000, shared, now: time.now });
    expect(await outcome(a)).toBe("ok");
    expect(await outcome(a)).toBe("ok");
    expect(await outcome(b)).toBe("ok");
    expect(await outcome(b)).toBe(10);
    expect(asked).toHaveLength(4);
    // Spent: b's next attempts are refused without a round trip (a page of several reads, a burst of pages).
    for (let i = 0; i < 20; i++) expect(await outcome(b)).toBe(10);
    expect(asked).toHaveLength(4);
    time.advance(10_000);
    expect(await outcome(b)).toBe("ok");
    expect(asked).toHaveLength(5);
  });

  it("counts per process while the shared window fails or is slow, and the fleet's again once it answers", async () => {
    const time = clock();
    let state: "up" | "down" | "slow" = "down";
    const fleet = memoryWindow(100, 10_000);
    const shared: SharedCallWindow = {
      take: (now) =>
        state === "up"
          ? Promise.resolve(fleetOnly(fleet.take(now)))
          : state === "down"
            ? Promise.reject(new Error("Connection is closed."))
            : new Promise(() => undefined),
    };
    const budget = createCallBudget({ limit: 2, windowMs: 10_000, shared, now: time.now, sharedTimeoutMs: 20 });
    expect(await outcome(budget)).toBe("ok");
    state = "slow";
    expect(await outcome(budget)).toBe("ok");
    // This process's own two calls spend its budget: the third is refused, not made.
    expect(await outcome(budget)).toBe(10);
    time.advance(10_000);
    state = "up";
    expect(await outcome(budget)).toBe("ok");
    expect(await outcome(budget)).toBe("ok");
    // The shared window has room for 100; the process's own count no longer decides.
    expect(await outcome(budget)).toBe("ok");
  });
});

describe("the policy with a budget", () => {
  it("takes one call per attempt, retries included, and a refusal ends the call unretried, with no attempt made", async () => {
    const time = clock();
    const budget = createCallBudget({ limit: 3, windowMs: 10_000, now: time.now });
    let attempts = 0;
    const outcomes: AttemptOutcome[] = [];
    const options = {
      now: time.now,
      sleep: async (ms: number) => void time.advance(ms),
      random: () => 0,
      log: () => undefined,
      beforeAttempt: () => overBudget({ clerkBudget: budget }, READ, ADA),
      onAttempt: (o: AttemptOutcome) => void outcomes.push(o),
    };
    const failing = async () => {
      attempts += 1;
      throw Object.assign(new Error("unavailable"), { clerkError: true, status: 503 });
    };
    // Three attempts spend the budget; the fourth (the last retry) is not made.
    const error = await callUpstream(READ, failing, options).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamUnavailableError);
    expect((error as UpstreamUnavailableError).retryAfterSeconds).toBe(10);
    expect(attempts).toBe(3);
    expect(outcomes).toEqual(["retried", "retried", "retried", "over_budget"]);
    // A later call makes no attempt at all.
    await expect(callUpstream(READ, async () => (attempts += 1), options)).rejects.toBeInstanceOf(
      UpstreamUnavailableError,
    );
    expect(attempts).toBe(3);
  });
});

describe("each payer's allowance", () => {
  const GRACE = personPays("user_grace");

  it("is a small share of the budget: in production a person 60 calls a minute, an address 5, each pool 10%", () => {
    expect(allowancesFor(900)).toEqual({ person: 60, address: 5, anonymous: 540, webhooks: 540 });
    // A development instance's 90: a person keeps a floor to work with.
    expect(allowancesFor(90)).toEqual({ person: 20, address: 5, anonymous: 54, webhooks: 54 });
  });

  it("past a person's allowance refuses them (their 429), and nobody else, until their oldest call is a minute old", async () => {
    const time = clock();
    const budget = createCallBudget({
      limit: 900,
      allowances: { person: 3, address: 1, anonymous: 10, webhooks: 10 },
      now: time.now,
    });
    for (let i = 0; i < 3; i++) expect(await budget.take(READ, ADA)).toBeNull();
    time.advance(20_000);
    expect(await budget.take(READ, ADA)).toEqual({ waitMs: 40_000, by: "allowance" });
    const refused = await overBudget({ clerkBudget: budget }, READ, ADA).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(OverAllowanceError);
    expect((refused as OverAllowanceError).retryAfterSeconds).toBe(40);
    // Grace's calls are hers.
    expect(await budget.take(READ, GRACE)).toBeNull();
    time.advance(40_000);
    expect(await budget.take(READ, ADA)).toBeNull();
  });

  it("draws anonymous work from its address's allowance and from one pool: any number of addresses spend only the pool", async () => {
    const time = clock();
    const budget = createCallBudget({
      limit: 900,
      allowances: { person: 60, address: 2, anonymous: 5, webhooks: 10 },
      now: time.now,
    });
    const outcomes = [];
    for (let n = 0; n < 20; n++) outcomes.push(await budget.take(READ, addressPays(`203.0.113.${n}`)));
    expect(outcomes.filter((o) => o === null)).toHaveLength(5);
    expect(outcomes.slice(5).every((o) => o?.by === "allowance")).toBe(true);
    // A person is not anonymous work: the pool spent costs them nothing.
    expect(await budget.take(READ, ADA)).toBeNull();
  });

  it("refuses a payer past their allowance without asking the shared window again", async () => {
    const time = clock();
    let asked = 0;
    const shared: SharedCallWindow = {
      take: async () => (asked++, { waitMs: 30_000, by: "allowance" }),
    };
    const budget = createCallBudget({ limit: 900, shared, now: time.now });
    for (let i = 0; i < 10; i++) expect((await budget.take(READ, ADA))?.by).toBe("allowance");
    expect(asked).toBe(1);
    // Another payer is asked about.
    await budget.take(READ, GRACE);
    expect(asked).toBe(2);
  });

  it("deferrable calls together use at most their share of the fleet's budget: needed calls always have the rest", async () => {
    const time = clock();
    const budget = createCallBudget({
      limit: 10,
      allowances: { person: 100, address: 100, anonymous: 100, webhooks: 100 },
      now: time.now,
    });
    const people = Array.from({ length: 20 }, (_, n) => personPays(`user_${n}`));
    const deferred = [];
    for (const person of people) deferred.push(await budget.take(READ, person, "deferrable"));
    // 60% of 10: six, from anyone; then every display read waits, as a 503 would say.
    expect(deferred.filter((o) => o === null)).toHaveLength(6);
    expect(deferred.slice(6).every((o) => o?.by === "deferrable")).toBe(true);
    const refused = await overBudget({ clerkBudget: budget }, READ, ADA, "deferrable").catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(UpstreamUnavailableError);
    // The rest is the needed calls': a sign-in, a write, the read that authorizes a page.
    for (let i = 0; i < 4; i++) expect(await budget.take(READ, GRACE, "needed")).toBeNull();
    expect((await budget.take(READ, ADA, "needed"))?.by).toBe("fleet");
    time.advance(BUDGET_WINDOW_MS);
    expect(await budget.take(READ, ADA, "deferrable")).toBeNull();
  });

  it("a deferrable call goes only while the fleet's window is below its share, whatever filled it", async () => {
    const time = clock();
    const budget = createCallBudget({
      limit: 10,
      allowances: { person: 100, address: 100, anonymous: 100, webhooks: 100 },
      now: time.now,
    });
    for (let i = 0; i < 6; i++) expect(await budget.take(READ, personPays(`user_${i}`), "needed")).toBeNull();
    const refused = await budget.take(READ, ADA, "deferrable");
    expect(refused?.by).toBe("deferrable");
    // Until the call that made it six leaves (the first, here); needed calls still have the rest.
    expect(refused?.waitMs).toBe(BUDGET_WINDOW_MS);
    for (let i = 0; i < 4; i++) expect(await budget.take(READ, GRACE, "needed")).toBeNull();
    expect((await budget.take(READ, GRACE, "needed"))?.by).toBe("fleet");
  });

  it("the fleet's budget spent is everyone's 503, and charges no payer", async () => {
    const time = clock();
    const budget = createCallBudget({
      limit: 2,
      allowances: { person: 2, address: 1, anonymous: 10, webhooks: 10 },
      now: time.now,
    });
    expect(await budget.take(READ, ADA)).toBeNull();
    expect(await budget.take(READ, GRACE)).toBeNull();
    expect((await budget.take(READ, ADA))?.by).toBe("fleet");
    time.advance(BUDGET_WINDOW_MS);
    // The refused attempt was not counted against Ada: she still has one call of her two.
    expect(await budget.take(READ, ADA)).toBeNull();
  });
});
