import { describe, expect, it } from "vitest";
import { createCache, memoryStore, STALE_FOR_MS } from "~/lib/cache/shared-cache.server";
import type { LookupResult } from "~/lib/metrics.server";

// Two "instances" are two caches over one store (as two processes over Redis).
function setup(sharedTtlMs = 60_000, authorizes = false) {
  let time = 1_000_000;
  const now = () => time;
  const store = memoryStore({ now });
  const lookups: LookupResult[] = [];
  const instance = () =>
    createCache<string>({
      name: "profiles",
      localTtlMs: 2_000,
      sharedTtlMs,
      authorizes,
      store,
      now,
      onLookup: (r) => lookups.push(r),
    });
  return { a: instance(), b: instance(), lookups, pass: (ms: number) => (time += ms) };
}

const unavailable = () => Promise.reject(new Response(null, { status: 503 }));
const settle = () => new Promise((r) => setTimeout(r, 0));

describe("the shared cache", () => {
  it("one read from Clerk serves both instances until its shared lifetime ends", async () => {
    const { a, b, lookups, pass } = setup();
    let reads = 0;
    const load = async () => `read ${++reads}`;
    expect(await a.get("org_1", load)).toBe("read 1");
    await settle();
    expect(await b.get("org_1", load)).toBe("read 1");
    pass(59_000);
    expect(await b.get("org_1", load)).toBe("read 1");
    pass(2_000);
    expect(await a.get("org_1", load)).toBe("read 2");
    expect(lookups).toEqual(["miss", "hit", "hit", "miss"]);
  });

  it("concurrent misses on one instance make one read; a failed read is not kept", async () => {
    const { a } = setup();
    let reads = 0;
    const slow = () => new Promise<string>((resolve) => setTimeout(() => resolve(`read ${++reads}`), 5));
    expect(await Promise.all([a.get("k", slow), a.get("k", slow)])).toEqual(["read 1", "read 1"]);
    await expect(a.get("other", () => Promise.reject(new Error("boom")))).rejects.toThrow("boom");
    expect(await a.get("other", async () => "ok")).toBe("ok");
  });

  it("serves a copy up to 10 minutes old when Clerk is unavailable, and not older", async () => {
    const { a, b, lookups, pass } = setup(2_000);
    await a.get("org_1", async () => "kept");
    await settle();
    pass(STALE_FOR_MS - 1_000);
    expect(await b.get("org_1", unavailable)).toBe("kept");
    expect(lookups.at(-1)).toBe("stale");
    pass(2_000);
    await expect(a.get("org_1", unavailable)).rejects.toBeInstanceOf(Response);
    // Other failures (a bug, a 4xx) are never covered up.
    const { a: c, pass: later } = setup(2_000);
    await c.get("org_2", async () => "kept");
    later(3_000);
    await expect(c.get("org_2", () => Promise.reject(new Error("bug")))).rejects.toThrow("bug");
  });

  it("a cache that authorizes never serves a copy past its fresh lifetime, even when Clerk fails", async () => {
    const { a, b, lookups, pass } = setup(2_000, true);
    await a.get("user_1", async () => "member of org_1");
    await settle();
    pass(1_500);
    // Within its fresh lifetime, from the store: Clerk is not asked.
    expect(await b.get("user_1", unavailable)).toBe("member of org_1");
    pass(3_000);
    await expect(b.get("user_1", unavailable)).rejects.toBeInstanceOf(Response);
    await expect(a.get("user_1", unavailable)).rejects.toBeInstanceOf(Response);
    expect(lookups).toEqual(["miss", "hit", "too_old_to_authorize", "too_old_to_authorize"]);
  });

  it("forgetting a key drops both levels; a read of its group under way when it was forgotten is not kept for others", async () => {
    const { a, b } = setup();
    await a.get("org_1", async () => "old");
    await settle();
    b.forget("org_1");
    await settle();
    let finish: (value: string) => void = () => undefined;
    let started = false;
    // Another key of org_1's group (as `org_1|2|ada` is a page of org_1's directory).
    const underWay = a.get("org_1|members", () => {
      started = true;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    while (!started) await settle();
    a.forget("org_1");
    finish("read before the change");
    expect(await underWay).toBe("read before the change");
    await settle();
    expect(await b.get("org_1", async () => "new")).toBe("new");
    expect(await b.get("org_1|members", async () => "read after")).toBe("read after");
  });

  it("a forget refuses the writes of reads under way of its own group only (an organization's, a person's)", async () => {
    const { a, b } = setup();
    await a.get("org_0", async () => "warm");
    const underWay = (key: string) => {
      let finish: (value: string) => void = () => undefined;
      let started = false;
      const read = a.get(key, () => {
        started = true;
        return new Promise<string>((resolve) => (finish = resolve));
      });
      return { started: () => started, finish: (value: string) => (finish(value), read) };
    };
    const [mine, other] = [underWay("org_1"), underWay("org_2")];
    while (!mine.started() || !other.started()) await settle();
    // Another instance forgets org_1 (its webhook, or its own write).
    b.forget("org_1");
    await b.forgotten();
    expect(await mine.finish("org_1 read before its change")).toBe("org_1 read before its change");
    expect(await other.finish("org_2 read meanwhile")).toBe("org_2 read meanwhile");
    await settle();
    expect(await b.get("org_2", async () => "asked Clerk")).toBe("org_2 read meanwhile");
    expect(await b.get("org_1", async () => "read after the change")).toBe("read after the change");
  });

  it("clearing `<group>|` forgets every key of that group, and neither another group's keys nor its reads under way; '' or any other prefix, every key", async () => {
    const { a, b } = setup();
    const keys = ["org_1|1|", "org_1|2|ada", "org_2|1|"];
    for (const key of keys) await a.get(key, async () => `kept ${key}`);
    await settle();
    let finish: (value: string) => void = () => undefined;
    let started = false;
    const underWay = b.get("org_2|2|", () => {
      started = true;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    while (!started) await settle();
    const fresh = async () => "read again";
    a.clear("org_1|");
    await a.forgotten();
    finish("org_2's page 2");
    expect(await underWay).toBe("org_2's page 2");
    await settle();
    expect(await b.get("org_1|1|", fresh)).toBe("read again");
    expect(await b.get("org_1|2|ada", fresh)).toBe("read again");
    expect(await b.get("org_2|1|", fresh)).toBe("kept org_2|1|");
    expect(await a.get("org_2|2|", fresh)).toBe("org_2's page 2");
    // A prefix that is not one group's (or none) reaches every group.
    const { a: c, b: d } = setup();
    for (const key of keys) await c.get(key, async () => `kept ${key}`);
    await settle();
    c.clear("org_");
    await c.forgotten();
    for (const key of keys) expect(await d.get(key, fresh)).toBe("read again");
  });

  it("a value read with another is not kept if anything was forgotten while it was read", async () => {
    const { a, b } = setup();
    const mark = a.mark();
    a.forget("org_1");
    a.set("org_1", "read before the rename", mark);
    await settle();
    expect(await b.get("org_1", async () => "read after the rename")).toBe("read after the rename");
    expect(await a.get("org_1", async () => "read after the rename")).toBe("read after the rename");
    a.set("org_2", "read with nothing forgotten", a.mark());
    await settle();
    expect(await b.get("org_2", async () => "not read")).toBe("read with nothing forgotten");
  });

  it("forgotten() resolves once the store has dropped what was forgotten", async () => {
    const store = memoryStore();
    let release: () => void = () => undefined;
    const slowDeletes = {
      ...store,
      clear: (family: string, prefix: string) =>
        new Promise<void>((r) => (release = r)).then(() => store.clear(family, prefix)),
    };
    const cache = createCache<string>({ name: "pages", localTtlMs: 1_000, sharedTtlMs: 60_000, store: slowDeletes });
    await cache.get("org_1|1|", async () => "page 1");
    await settle();
    cache.clear("org_1|");
    let done = false;
    void cache.forgotten().then(() => (done = true));
    await settle();
    expect(done).toBe(false);
    release();
    await cache.forgotten();
    expect((await store.read("pages", "org_1|1|")).stored).toBeNull();
  });

  it("forgotten() fails when the store could not drop what was forgotten (a webhook must not be acknowledged)", async () => {
    const store = memoryStore();
    const readOnly = { ...store, delete: () => Promise.reject(new Error("READONLY")) };
    const cache = createCache<string>({ name: "profiles", localTtlMs: 1_000, sharedTtlMs: 60_000, store: readOnly });
    // A page's forget waits for nothing: its failure is dropped, not left unhandled.
    cache.forget("org_0");
    await settle();
    await cache.forgotten();
    cache.forget("org_1");
    await expect(cache.forgotten()).rejects.toThrow("READONLY");
  });
});

describe("the store's generations", () => {
  it("a write is kept only if nothing of its group was forgotten since it was read", async () => {
    const store = memoryStore();
    const at = { value: "v", at: 0 };
    const { generation } = await store.read("profiles", "org_1");
    expect(await store.write("profiles", "org_1", at, 60_000, generation)).toBe(true);
    expect((await store.read("profiles", "org_1")).stored).toEqual(at);

    // Its group forgotten (through another key of it): writes read before are refused, and the answer is not shown.
    const before = (await store.read("profiles", "org_1")).generation;
    await store.delete("profiles", "org_1|x");
    expect(await store.write("profiles", "org_1", { value: "read before", at: 1 }, 60_000, before)).toBe(false);
    expect((await store.read("profiles", "org_1")).stored).toBeNull();
    // Another group's forget, or another family's clear, refuses nothing.
    const org2 = (await store.read("profiles", "org_2")).generation;
    const pages = (await store.read("memberPages", "org_1|1|")).generation;
    await store.delete("profiles", "org_3");
    await store.clear("profiles", "org_4|");
    expect(await store.write("profiles", "org_2", at, 60_000, org2)).toBe(true);
    await store.clear("profiles", "");
    expect(await store.write("memberPages", "org_1|1|", at, 60_000, pages)).toBe(true);
    expect((await store.read("memberPages", "org_1|1|")).stored).toEqual(at);
    // A clear of every group hides every answer, and one read before it but written after.
    expect((await store.read("profiles", "org_2")).stored).toBeNull();
    await store.write("profiles", "org_2", at, 60_000, org2);
    expect((await store.read("profiles", "org_2")).stored).toBeNull();
    // Read after the change: kept.
    const after = (await store.read("profiles", "org_1")).generation;
    expect(await store.write("profiles", "org_1", { value: "read after", at: 2 }, 60_000, after)).toBe(true);
    expect((await store.read("profiles", "org_1")).stored).toEqual({ value: "read after", at: 2 });
  });

  it("an answer read with another is kept only if nothing of its family was forgotten since the family's generation was read", async () => {
    const store = memoryStore();
    const at = { value: "v", at: 0 };
    const family = (await store.read("profiles", "org_0")).generation.family!;
    expect(await store.writeIfQuiet("profiles", "org_1", at, 60_000, family)).toBe(true);
    expect((await store.read("profiles", "org_1")).stored).toEqual(at);
    await store.delete("profiles", "org_9");
    expect(await store.writeIfQuiet("profiles", "org_2", at, 60_000, family)).toBe(false);
    expect((await store.read("profiles", "org_2")).stored).toBeNull();
  });

  it("an instance not told of a change never writes back what Clerk said before it", async () => {
    const { a, b } = setup();
    // a has read this cache's family before (it knows its generation).
    await a.get("org_0", async () => "warm");
    let finish: (value: string) => void = () => undefined;
    let started = false;
    const underWay = a.get("org_1", () => {
      started = true;
      return new Promise<string>((resolve) => (finish = resolve));
    });
    while (!started) await settle();
    const mark = a.mark();
    // The webhook reaches b, and its message never reaches a.
    b.forget("org_1");
    b.forget("org_2");
    await b.forgotten();
    finish("read before the change");
    expect(await underWay).toBe("read before the change");
    a.set("org_2", "read with the memberships, before the change", mark);
    await settle();
    expect(await b.get("org_1", async () => "read after the change")).toBe("read after the change");
    expect(await b.get("org_2", async () => "read after the change")).toBe("read after the change");
  });
});
