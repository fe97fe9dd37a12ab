import { describe, expect, it } from "vitest";
import { createCache, memoryStore } from "~/lib/cache/shared-cache.server";
import { clerkStandIn } from "../support/shared-state";

// Several "instances" are several caches over one store (as processes over Redis), on one controlled clock
// that only the test moves. A waiter's pauses are added up (`waited`), not slept, so how long it would have
// waited is read off that sum.
function fleet(sharedTtlMs = 60_000) {
  let time = 1_000_000;
  const now = () => time;
  const store = memoryStore({ now });
  const kept: [string, string][] = [];
  let waited = 0;
  const instance = () =>
    createCache<string>({
      name: "profiles",
      localTtlMs: 2_000,
      sharedTtlMs,
      store,
      now,
      pause: async (ms) => {
        waited += ms;
        await settle();
      },
      onKept: (key, value) => kept.push([key, value]),
    });
  return { instance, store, kept, waited: () => waited, pass: (ms: number) => (time += ms) };
}

const settle = () => new Promise<void>((r) => setTimeout(r, 0));

/** Turns the event loop until `ready`: a read's asking, on this file's controlled clock. */
const turns = async (ready: () => boolean) => {
  while (!ready()) await settle();
};

describe("single flight across instances", () => {
  it("instances missing the same key at once ask Clerk once; the others take its answer from the store", async () => {
    const { instance } = fleet();
    const instances = [instance(), instance(), instance(), instance()];
    const source = clerkStandIn(turns);
    const reads = instances.map((cache) => cache.get("org_1", source.load));
    await source.asked();
    for (let i = 0; i < 5; i++) await settle();
    source.answer("read once");
    expect(await Promise.all(reads)).toEqual(["read once", "read once", "read once", "read once"]);
    // (A waiter whose wait ran out would have asked Clerk itself.)
    expect(source.calls()).toBe(1);
  });

  it("a reader that fails lets the waiters go at once: one of them reads", async () => {
    const { instance, waited } = fleet();
    const [a, b, c] = [instance(), instance(), instance()];
    const source = clerkStandIn(turns);
    const failed = a.get("org_1", source.load);
    await source.asked();
    const waiting = [b.get("org_1", source.load), c.get("org_1", source.load)];
    await settle();
    source.fail(new Error("Clerk said no"));
    await expect(failed).rejects.toThrow("Clerk said no");
    await source.asked();
    source.answer("read again");
    expect(await Promise.all(waiting)).toEqual(["read again", "read again"]);
    expect(source.calls()).toBe(2);
    expect(waited()).toBeLessThan(2 * 200);
  });

  it("a reader that never answers holds the others 1.5 s at most: then they read themselves", async () => {
    const { instance, waited } = fleet();
    const [a, b] = [instance(), instance()];
    const stuck = clerkStandIn(turns);
    void a.get("org_1", stuck.load);
    await stuck.asked();
    expect(await b.get("org_1", async () => "read alone")).toBe("read alone");
    expect(waited()).toBe(1_500);
  });

  it("a reader's lease ends after 2 s if it is never dropped (its process died)", async () => {
    const { instance, store, pass } = fleet();
    expect(await store.lead("profiles", "org_1", 2_000)).not.toBeNull();
    pass(1_999);
    expect(await store.lead("profiles", "org_1", 2_000)).toBeNull();
    pass(1);
    expect(await instance().get("org_1", async () => "read")).toBe("read");
  });

  it("a forget during the read refuses its answer: the waiters do not take it, one reads again", async () => {
    const { instance } = fleet();
    const [a, b, c, d] = [instance(), instance(), instance(), instance()];
    const source = clerkStandIn(turns);
    const before = a.get("org_1", source.load);
    await source.asked();
    const waiting = b.get("org_1", source.load);
    await settle();
    c.forget("org_1");
    await c.forgotten();
    source.answer("read before the change");
    expect(await before).toBe("read before the change");
    await source.asked();
    source.answer("read after the change");
    expect(await waiting).toBe("read after the change");
    await settle();
    expect(await d.get("org_1", () => Promise.reject(new Error("not kept")))).toBe("read after the change");
  });

  it("an answer past its fresh lifetime is not taken by a waiter; a waiter takes the one just read", async () => {
    const { instance, pass } = fleet(5_000);
    const [a, b, c] = [instance(), instance(), instance()];
    await a.get("user_1", async () => "old");
    await settle();
    pass(6_000);
    const source = clerkStandIn(turns);
    const reads = [b.get("user_1", source.load), c.get("user_1", source.load)];
    await source.asked();
    await settle();
    source.answer("new");
    expect(await Promise.all(reads)).toEqual(["new", "new"]);
    expect(source.calls()).toBe(1);
  });
});

describe("single flight when the store fails mid-way", () => {
  it("a lead or a look that fails does not fail the page: the instance reads Clerk itself", async () => {
    const store = memoryStore();
    const broken = (method: "lead" | "poll") => ({ ...store, [method]: () => Promise.reject(new Error("READONLY")) });
    const [leads, looks] = [broken("lead"), broken("poll")].map((shared) =>
      createCache<string>({ name: "profiles", localTtlMs: 1, sharedTtlMs: 60_000, store: shared, pause: settle }),
    );
    expect(await leads!.get("org_1", async () => "read alone")).toBe("read alone");
    // Another instance holds org_2's lease: this one's look fails, and it reads.
    await store.lead("profiles", "org_2", 2_000);
    expect(await looks!.get("org_2", async () => "read alone")).toBe("read alone");
  });
});

describe("update", () => {
  it("keeps next(current) for every instance, fresh from now, without asking Clerk", async () => {
    const { instance, pass, kept } = fleet(5_000);
    const [a, b] = [instance(), instance()];
    await a.get("org_1", async () => "Acme");
    await settle();
    pass(4_000);
    const seen: (string | null)[] = [];
    await b.update("org_1", (current) => (seen.push(current), `${current} Inc.`));
    expect(seen).toEqual(["Acme"]);
    pass(4_000);
    // 8 s after the first read, 4 s after the update: fresh.
    const notAsked = () => Promise.reject(new Error("asked Clerk"));
    expect(await a.get("org_1", notAsked)).toBe("Acme Inc.");
    expect(await b.get("org_1", notAsked)).toBe("Acme Inc.");
    expect(kept).toEqual([
      ["org_1", "Acme"],
      ["org_1", "Acme Inc."],
    ]);
    // Nothing kept: next gets null.
    await b.update("org_2", (current) => current ?? "from the payload");
    expect(await a.get("org_2", notAsked)).toBe("from the payload");
  });

  it("keeps the new answer in this instance's own copy too", async () => {
    const store = memoryStore();
    let away = false;
    const unreachable = () => Promise.reject(new Error("Redis is away"));
    const flaky = {
      ...store,
      read: (family: string, key: string) => (away ? unreachable() : store.read(family, key)),
      lead: (family: string, key: string, ms: number) => (away ? unreachable() : store.lead(family, key, ms)),
    };
    const a = createCache<string>({ name: "profiles", localTtlMs: 2_000, sharedTtlMs: 60_000, store: flaky });
    await a.get("org_1", async () => "Acme");
    await a.update("org_1", () => "Acme Inc.");
    away = true;
    expect(await a.get("org_1", () => Promise.reject(new Error("asked Clerk")))).toBe("Acme Inc.");
  });

  it("next returning null forgets the key", async () => {
    const { instance } = fleet();
    const [a, b] = [instance(), instance()];
    await a.get("org_1", async () => "Acme");
    await settle();
    await b.update("org_1", () => null);
    expect(await b.get("org_1", async () => "read again")).toBe("read again");
  });

  it("beats a read begun before it, on any instance: its answer is not written back", async () => {
    const { instance } = fleet();
    const [a, b, c] = [instance(), instance(), instance()];
    await a.get("org_0", async () => "warm");
    const source = clerkStandIn(turns);
    const before = a.get("org_1", source.load);
    await source.asked();
    const mark = a.mark();
    await b.update("org_1", () => "renamed");
    source.answer("read before the rename");
    expect(await before).toBe("read before the rename");
    a.set("org_1|members", "read with it, before the rename", mark);
    await settle();
    expect(await c.get("org_1", async () => "asked Clerk")).toBe("renamed");
    expect(await c.get("org_1|members", async () => "asked Clerk")).toBe("asked Clerk");
  });

  it("rejects when the store could neither keep nor forget", async () => {
    const store = memoryStore();
    const broken = { ...store, update: () => Promise.reject(new Error("READONLY")) };
    const cache = createCache<string>({ name: "profiles", localTtlMs: 1_000, sharedTtlMs: 60_000, store: broken });
    const updating = cache.update("org_1", () => "x");
    await expect(cache.forgotten()).rejects.toThrow("READONLY");
    await expect(updating).rejects.toThrow("READONLY");
  });
});
