import { describe, expect, it } from "vitest";
import { createShortCache } from "../../app/lib/cache/short-cache.server";

describe("short caches", () => {
  function clock() {
    let at = 0;
    return { now: () => at, advance: (ms: number) => (at += ms) };
  }

  it("answers from one read within its lifetime, concurrent misses included, and reads again after it", async () => {
    const time = clock();
    const cache = createShortCache<number>({ ttlMs: 5_000, now: time.now });
    let reads = 0;
    const load = () => Promise.resolve(++reads);
    expect(await Promise.all([cache.get("org_1", load), cache.get("org_1", load)])).toEqual([1, 1]);
    time.advance(4_999);
    expect(await cache.get("org_1", load)).toBe(1);
    time.advance(1);
    expect(await cache.get("org_1", load)).toBe(2);
  });

  it("says whether each lookup hit: a read in flight is shared, an expired entry is a miss", async () => {
    const time = clock();
    const lookups: boolean[] = [];
    const cache = createShortCache<number>({ ttlMs: 5_000, now: time.now, onLookup: (hit) => lookups.push(hit) });
    const load = () => Promise.resolve(1);
    await Promise.all([cache.get("org_1", load), cache.get("org_1", load)]);
    time.advance(5_000);
    await cache.get("org_1", load);
    expect(lookups).toEqual([false, true, false]);
  });

  it("does not keep a failed read, and forgets a key on request", async () => {
    const cache = createShortCache<string>({ ttlMs: 5_000 });
    await expect(cache.get("k", () => Promise.reject(new Error("Clerk is down")))).rejects.toThrow("Clerk is down");
    expect(await cache.get("k", () => Promise.resolve("fresh"))).toBe("fresh");
    cache.forget("k");
    expect(await cache.get("k", () => Promise.resolve("after a write"))).toBe("after a write");
  });

  it("stays within its bound: expired entries go first, then the oldest live ones", async () => {
    const time = clock();
    const cache = createShortCache<string>({ ttlMs: 1_000, maxEntries: 2, now: time.now });
    await cache.get("a", () => Promise.resolve("a1"));
    time.advance(1_000); // a has expired
    await cache.get("b", () => Promise.resolve("b1"));
    await cache.get("c", () => Promise.resolve("c1")); // full: a (expired) goes
    await cache.get("d", () => Promise.resolve("d1")); // full of live entries: b, the oldest, goes
    expect(await cache.get("c", () => Promise.resolve("c2"))).toBe("c1");
    expect(await cache.get("d", () => Promise.resolve("d2"))).toBe("d1");
    expect(await cache.get("b", () => Promise.resolve("b2"))).toBe("b2");
  });

  it("gives each waiter of a failed read its own 503 response, whose body each can read (Remix reads it once per loader)", async () => {
    const cache = createShortCache<number>({ ttlMs: 5_000 });
    let reads = 0;
    const load = () => {
      reads += 1;
      return Promise.reject(new Response(JSON.stringify({ message: "unavailable" }), { status: 503 }));
    };
    const thrown = await Promise.all(
      [cache.get("org_1", load), cache.get("org_1", load), cache.get("org_1", load)].map((p) =>
        p.then(
          () => null,
          (error: unknown) => error as Response,
        ),
      ),
    );
    expect(reads).toBe(1);
    expect(new Set(thrown).size).toBe(3);
    for (const response of thrown) {
      if (!response) throw new Error("the read should have failed");
      expect(response.status).toBe(503);
      expect(await response.json()).toEqual({ message: "unavailable" });
    }
  });
});
