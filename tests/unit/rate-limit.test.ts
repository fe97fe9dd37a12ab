import { describe, expect, it } from "vitest";
import { createRateLimiter, type RateLimitCharge } from "~/lib/http/rate-limit.server";

// The /ingest relay's caps are taken together (consumeAll): a batch is relayed when every cap has room for
// it, and one refused costs no cap anything. In memory, at a hundredth of the real caps: 12 events and
// 41,943 bytes a minute per address, 1 MiB a minute in all.
const batch = (address: string, events: number, bytes: number): RateLimitCharge[] => [
  { action: "analytics-relay-events", who: address, points: events },
  { action: "analytics-relay-bytes", who: address, points: bytes },
  { action: "analytics-relay-fleet-events", who: "fleet", points: events },
  { action: "analytics-relay-fleet-bytes", who: "fleet", points: bytes },
];

describe("charges taken together", () => {
  it("a batch past its address's cap is refused, naming that cap, and is not counted", async () => {
    const limiter = createRateLimiter({ scale: 0.01 });
    const refused = await limiter.consumeAll(batch("ip:a", 13, 100));
    expect(refused).toMatchObject({ allowed: false, action: "analytics-relay-events" });
    if (!refused.allowed) expect(refused.retryAfterSeconds).toBeGreaterThan(0);
    expect(await limiter.consumeAll(batch("ip:a", 12, 100))).toEqual({ allowed: true });
    expect(await limiter.consumeAll(batch("ip:a", 1, 100))).toMatchObject({ allowed: false });
  });

  it("a batch refused by the fleet's cap gives its address back what it took", async () => {
    const limiter = createRateLimiter({ scale: 0.01 });
    for (let i = 0; i < 25; i += 1) {
      expect(await limiter.consumeAll(batch(`ip:${i}`, 1, 41_000))).toEqual({ allowed: true });
    }
    expect(await limiter.consumeAll(batch("ip:z", 1, 41_000))).toMatchObject({
      allowed: false,
      action: "analytics-relay-fleet-bytes",
    });
    // 1,025,000 of 1,048,576 bytes taken: 23,000 more fit, with all of ip:z's 12 events.
    expect(await limiter.consumeAll(batch("ip:z", 12, 23_000))).toEqual({ allowed: true });
  });
});
