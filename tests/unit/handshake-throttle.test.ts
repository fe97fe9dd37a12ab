import { describe, expect, it } from "vitest";
import { createHandshakeThrottle } from "~/lib/clerk/handshake-nonce.server";

describe("the handshake nonce throttle", () => {
  const limits = { perClient: 3, perInstance: 5, windowMs: 60_000 };

  it("allows each client its share of the window, then says when to come back", () => {
    let now = 1_000_000;
    const allow = createHandshakeThrottle(() => now, limits).allow;
    expect([1, 2, 3].map(() => allow("a").allowed)).toEqual([true, true, true]);
    now += 15_000;
    expect(allow("a")).toEqual({ allowed: false, retryAfterSeconds: 45 });
    now += 45_000;
    expect(allow("a").allowed).toBe(true);
  });

  it("caps the whole instance, whatever the number of clients", () => {
    const allow = createHandshakeThrottle(() => 0, limits).allow;
    const answers = Array.from({ length: 20 }, (_, n) => allow(`client-${n}`).allowed);
    expect(answers.filter(Boolean)).toHaveLength(5);
  });

  it("keeps a bounded number of clients: past it, new addresses share one count", () => {
    const allow = createHandshakeThrottle(() => 0, { perClient: 1, perInstance: 1_000_000, windowMs: 60_000 }).allow;
    const allowed = Array.from({ length: 10_050 }, (_, n) => allow(`client-${n}`).allowed).filter(Boolean);
    // 10,000 counted clients, then one shared count for the rest.
    expect(allowed).toHaveLength(10_001);
  });
});
