import { describe, expect, it } from "vitest";
import {
  createErrorReporter,
  createReportBudget,
  fingerprint,
  type SendError,
} from "~/lib/analytics/error-reports.server";
import { scrub, scrubbedError } from "~/lib/analytics/scrub";
import { NO_METRICS } from "~/lib/metrics.server";

describe("scrub: what an error's text may not carry", () => {
  it.each([
    ["an email", "No user ada.lovelace+work@example.co.uk found", "No user [email] found"],
    [
      "a Clerk id",
      "Organization org_2abcDEF9 has no member user_seed_ada",
      "Organization org_[id] has no member user_[id]",
    ],
    ["a session token", "Bad token eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl here", "Bad token [token] here"],
    ["a secret key", "Clerk refused sk_live_abc123", "Clerk refused [key]"],
    ["a query string", "GET /orgs/x/members?q=ada@example.com&page=2 failed", "GET /orgs/x/members failed"],
    ["a URL's query", "at file:///app/build/index.js?v=123:4:5", "at file:///app/build/index.js"],
  ])("%s", (_what, text, scrubbed) => {
    expect(scrub(text)).toBe(scrubbed);
  });

  it("leaves an ordinary message and stack frame alone", () => {
    const text = "Cannot read properties of undefined (reading 'name')\n    at loader (/app/build/index.js:120:14)";
    expect(scrub(text)).toBe(text);
  });

  it("scrubs the stack as well as the message, keeping the type", () => {
    const error = new TypeError("no membership for grace@example.com");
    const clean = scrubbedError(error);
    expect(clean).toMatchObject({ name: "TypeError", message: "no membership for [email]" });
    expect(clean.stack).not.toContain("grace@example.com");
    expect(clean.stack).toContain("error-reports.test.ts");
  });
});

describe("fingerprint: the same error, whatever its variable parts", () => {
  const at = (message: string, frame = "    at loader (/app/build/index.js:120:14)") =>
    Object.assign(new Error(message), { stack: `Error: ${message}\n${frame}` });

  it("is the same for other numbers, ids and quoted values", () => {
    expect(fingerprint(at("timed out after 3000 ms for 'a'"))).toBe(fingerprint(at("timed out after 25 ms for 'bb'")));
    expect(fingerprint(at("request 9f86d081884c7d65 failed"))).toBe(fingerprint(at("request 0a1b2c3d4e5f6a7b failed")));
  });

  it("differs by type, message and top frame", () => {
    const base = fingerprint(at("boom"));
    expect(fingerprint(Object.assign(at("boom"), { name: "TypeError" }))).not.toBe(base);
    expect(fingerprint(at("bang"))).not.toBe(base);
    expect(fingerprint(at("boom", "    at action (/app/build/index.js:300:1)"))).not.toBe(base);
  });
});

describe("the flood bound", () => {
  it("allows 10 reports of one error and 100 in all per minute, then again the next minute", () => {
    let now = 60_000 * 1000;
    const allow = createReportBudget(undefined, () => now);
    expect(Array.from({ length: 15 }, () => allow("a")).filter(Boolean)).toHaveLength(10);
    const others = Array.from({ length: 200 }, (_, i) => allow(`e${i % 50}`)).filter(Boolean);
    expect(others).toHaveLength(90);
    now += 60_000;
    expect(allow("a")).toBe(true);
  });

  it("is a sliding window: 10 of one error at 59 s, and 10 more at 61 s are refused", () => {
    let now = 59_000;
    const allow = createReportBudget(undefined, () => now);
    expect(Array.from({ length: 10 }, () => allow("a")).filter(Boolean)).toHaveLength(10);
    now = 61_000;
    expect(Array.from({ length: 10 }, () => allow("a")).filter(Boolean)).toHaveLength(0);
    now = 118_999;
    expect(allow("a")).toBe(false);
    now = 119_000;
    expect(Array.from({ length: 15 }, () => allow("a")).filter(Boolean)).toHaveLength(10);
  });

  it("is a sliding window in all: 100 at 59 s, and 100 more at 61 s are refused", () => {
    let now = 59_000;
    const allow = createReportBudget(undefined, () => now);
    expect(Array.from({ length: 100 }, (_, i) => allow(`e${i}`)).filter(Boolean)).toHaveLength(100);
    now = 61_000;
    expect(Array.from({ length: 100 }, (_, i) => allow(`f${i}`)).filter(Boolean)).toHaveLength(0);
    now = 119_000;
    expect(Array.from({ length: 100 }, (_, i) => allow(`f${i}`)).filter(Boolean)).toHaveLength(100);
  });

  it("lets no 60 s span hold more than 10 of one error or 100 in all, whatever the pattern", () => {
    let now = 0;
    const allow = createReportBudget(undefined, () => now);
    const sent: { key: string; at: number }[] = [];
    // A deterministic, bursty pattern: quiet stretches, then floods of a few errors.
    let seed = 42;
    const random = () => (seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31) / 2 ** 31;
    for (let step = 0; step < 20_000; step++) {
      now += Math.floor(random() * (random() < 0.1 ? 5_000 : 50));
      const key = `e${Math.floor(random() * 15)}`;
      if (allow(key)) sent.push({ key, at: now });
    }
    for (const { key, at } of sent) {
      const span = sent.filter((s) => s.at > at - 60_000 && s.at <= at);
      expect(span.length).toBeLessThanOrEqual(100);
      expect(span.filter((s) => s.key === key).length).toBeLessThanOrEqual(10);
    }
    expect(sent.length).toBeGreaterThan(1_000);
  });

  it("does not count what it refused", () => {
    let now = 0;
    const allow = createReportBudget(undefined, () => now);
    for (let i = 0; i < 10; i++) allow("a");
    for (now = 1_000; now < 60_000; now += 1_000) expect(allow("a")).toBe(false);
    now = 60_000;
    expect(allow("a")).toBe(true);
  });

  it("remembers no more fingerprints than it may send in a window, and forgets them after", () => {
    let now = 0;
    const allow = createReportBudget(undefined, () => now);
    for (let i = 0; i < 10_000; i++) {
      now += 100;
      allow(`error-${i}`);
      expect(allow.remembered()).toBeLessThanOrEqual(100);
    }
    now += 60_000;
    allow("one more");
    expect(allow.remembered()).toBe(1);
  });

  it("counts what it sends and what it drops, and a failing sender fails nothing", () => {
    const outcomes: string[] = [];
    const metrics = { ...NO_METRICS, errorReport: (outcome: string) => void outcomes.push(outcome) };
    const sent: Parameters<SendError>[] = [];
    const report = createErrorReporter((...args) => void sent.push(args), metrics);
    const facts = { requestId: "req-1", routeId: "routes/x", method: "GET", status: 500, person: true };
    for (let i = 0; i < 12; i++) report(new Error(`boom ${i}`), "user_1", facts);
    expect(outcomes.filter((o) => o === "sent")).toHaveLength(10);
    expect(outcomes.filter((o) => o === "dropped")).toHaveLength(2);
    expect(sent[0]![2]).toEqual({
      request_id: "req-1",
      route_id: "routes/x",
      method: "GET",
      status: 500,
      $process_person_profile: true,
    });

    const throwing = createErrorReporter(() => {
      throw new Error("PostHog is down");
    }, metrics);
    expect(() => throwing(new Error("other"), "user_1", facts)).not.toThrow();
  });
});
