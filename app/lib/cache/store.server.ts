/**
 * What the shared caches keep their answers in (shared-cache.server), and the
 * store of a single instance; Redis's is app/lib/cache/redis-store.server.ts.
 */

/** A kept answer and when it was read from Clerk (ms since the epoch). */
export type Stored = { value: unknown; at: number };

/**
 * Where a key stood in its forgets when it was read: its group's generation
 * (moved by each forget or clear of that group: see `groupOf`) and its
 * family's (moved by every forget or clear of the family, the cache's).
 * Opaque to the cache; the store compares them. A null part: the store keeps
 * none (never started, expired, or Redis restarted or evicted it); `start`
 * makes it before Clerk is asked, so the answer can be kept under it.
 */
export type Generation = { group: string | null; family: string | null };

/**
 * Where answers are kept beyond this instance's few seconds: Redis, shared by
 * every instance, or this process's memory. Keys come in families (a cache's
 * name), and within a family in groups (see `groupOf`), each with a
 * generation: a write is kept only if nothing of its group was forgotten
 * since it was read, so an answer Clerk gave before a change is never written
 * back after it, even by an instance that was not told of the change (the
 * channel that tells them can miss one: see server/coordination.ts). A
 * forget moves generations only: no key is looked for, and one group's forget
 * refuses no other group's writes.
 */
export type CacheStore = {
  /** A kept answer (null if none, or kept before its group was forgotten) and where its key stands, read together (one round trip). */
  read(family: string, key: string): Promise<Read>;
  /** Starts the generations `read` found missing for the key, and says where the key now stands. */
  start(family: string, key: string): Promise<Generation>;
  /**
   * Keeps the answer if its group is still at `generation`, atomically: whether it was kept. With `lease`
   * (the writer's, from `lead`), drops the lease in the same step, kept or not: a waiter never sees the
   * lease gone before the answer is there.
   */
  write(
    family: string,
    key: string,
    stored: Stored,
    keepMs: number,
    generation: Generation,
    lease?: string,
  ): Promise<boolean>;
  /**
   * Keeps an answer read with another (whose own group's generation was not
   * read) if nothing of its family was forgotten since the family was at
   * `familyGeneration`: whether it was kept.
   */
  writeIfQuiet(family: string, key: string, stored: Stored, keepMs: number, familyGeneration: string): Promise<boolean>;
  /** Moves the key's group's generation on (and the family's): its answers are not served again. */
  delete(family: string, key: string): Promise<void>;
  /** The same for the group `prefix` names (`<group>|`), or for every group of the family ("" or any other prefix). */
  clear(family: string, prefix: string): Promise<void>;
  /**
   * Makes this instance the key's reader for at most `holdMs` (see
   * shared-cache.server, single flight): the lease to write with, or null
   * when another instance holds it. One command: what the key holds was
   * read just before (the miss, or a waiter's look).
   */
  lead(family: string, key: string, holdMs: number): Promise<string | null>;
  /** What `read` says, and whether a reader holds the key's lease (a waiter's look: one round trip). */
  poll(family: string, key: string): Promise<Read & { leased: boolean }>;
  /** Drops the lease if it is still this one (a reader that read nothing to write). */
  release(family: string, key: string, lease: string): Promise<void>;
  /**
   * Moves the key's group on as `delete` does (its family's generation
   * first), and keeps `next(current)` under the group's new generation:
   * `current` is the answer kept under the generation before, fresh or not.
   * Whether it was kept: false when `next` gave null, or the group moved
   * between the read of `current` and the write (a patch of a value already
   * stale is never kept); the key is then forgotten, as by `delete`.
   */
  update(family: string, key: string, next: (current: Stored | null) => Replacement | null): Promise<boolean>;
};

/** What `read` finds. */
export type Read = { stored: Stored | null; generation: Generation };

/** An answer `update` keeps, and for how long. */
export type Replacement = { stored: Stored; keepMs: number };

/**
 * A store without single flight or `update`: the previous release's
 * (tests/fixtures/redis-format-1), which today's caches can still run over
 * (`withoutLeads`).
 */
export type GenerationStore = Omit<CacheStore, "lead" | "poll" | "release" | "update">;

/**
 * A GenerationStore as a CacheStore: every miss is this instance's to read
 * (as before single flight), and `update` forgets.
 */
export function withoutLeads(store: GenerationStore): CacheStore {
  return {
    ...store,
    async lead() {
      return "alone";
    },
    async poll(family, key) {
      return { ...(await store.read(family, key)), leased: false };
    },
    async release() {},
    async update(family, key) {
      await store.delete(family, key);
      return false;
    },
  };
}

/**
 * A key's group: what comes before its first `|`, else the whole key. Keys
 * are an organization's or a person's id, or start with one (`org_1|2|ada`,
 * a page of org_1's directory), so a group is what one change can touch.
 */
export function groupOf(key: string): string {
  const bar = key.indexOf("|");
  return bar < 0 ? key : key.slice(0, bar);
}

/** The group `clear(prefix)` names: `<group>|`. null for "" or any other prefix: every group of the family. */
export function groupNamedBy(prefix: string): string | null {
  const bar = prefix.indexOf("|");
  return bar > 0 && bar === prefix.length - 1 ? prefix.slice(0, bar) : null;
}

/**
 * A family's generation is `<epoch>:<id>`: a forget moves the id, a clear of
 * every group the epoch. An answer is shown only under the epoch it was kept
 * in, so clearing every group moves one generation.
 */
export function epochOf(familyGeneration: string): string {
  const colon = familyGeneration.indexOf(":");
  return colon < 0 ? familyGeneration : familyGeneration.slice(0, colon);
}

/**
 * The store of a single instance: this process's memory, at most `maxEntries`
 * answers and `maxGroups` groups' generations (past that, every group's
 * generation starts again, which refuses writes under way and hides what is
 * kept: never wrong, only a few more reads). Generations are numbers from one
 * counter, so none repeats. Its leases are real, as one store's for several
 * caches (the unit tests' instances); one instance's cache asks for a key's
 * lease while another read of it is under way only after a forget (its own
 * concurrent misses share one read), and then waits for that read's end.
 */
export function memoryStore({ maxEntries = 5_000, maxGroups = 50_000, now = Date.now } = {}): CacheStore {
  let counter = 0;
  const fresh = () => String(++counter);
  const families = new Map<string, { epoch: string; generation: string }>();
  const groups = new Map<string, string>();
  const entries = new Map<string, { stored: Stored; until: number; group: string; epoch: string }>();
  const leases = new Map<string, { lease: string; until: number }>();

  const familyOf = (family: string) => {
    let generations = families.get(family);
    if (!generations) {
      const epoch = fresh();
      families.set(family, (generations = { epoch, generation: `${epoch}:${fresh()}` }));
    }
    return generations;
  };
  const groupKey = (family: string, group: string) => `${family}|${group}`;
  const groupGeneration = (family: string, key: string) => {
    const at = groupKey(family, groupOf(key));
    let generation = groups.get(at);
    if (generation === undefined) {
      if (groups.size >= maxGroups) groups.clear();
      groups.set(at, (generation = fresh()));
    }
    return generation;
  };
  const generationOf = (family: string, key: string): Generation => ({
    group: groupGeneration(family, key),
    family: familyOf(family).generation,
  });
  const keep = (family: string, key: string, stored: Stored, keepMs: number, group: string, epoch: string) => {
    entries.delete(`${family}:${key}`);
    // Maps keep insertion order: the first key is the oldest written.
    if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
    entries.set(`${family}:${key}`, { stored, until: now() + keepMs, group, epoch });
    return true;
  };
  const moveFamily = (family: string) => {
    const generations = familyOf(family);
    generations.generation = `${generations.epoch}:${fresh()}`;
  };
  const shown = (family: string, key: string, generation: Generation) => {
    const entry = entries.get(`${family}:${key}`);
    const current =
      entry && entry.until > now() && entry.group === generation.group && entry.epoch === familyOf(family).epoch;
    return current ? entry.stored : null;
  };
  const leaseOf = (family: string, key: string) => {
    const held = leases.get(`${family}:${key}`);
    return held && held.until > now() ? held.lease : null;
  };
  const release = (family: string, key: string, lease: string) => {
    if (leases.get(`${family}:${key}`)?.lease === lease) leases.delete(`${family}:${key}`);
  };

  const store: CacheStore = {
    async read(family, key) {
      const generation = generationOf(family, key);
      return { stored: shown(family, key, generation), generation };
    },
    async start(family, key) {
      return generationOf(family, key);
    },
    async write(family, key, stored, keepMs, generation, lease) {
      if (lease !== undefined) release(family, key, lease);
      if (generation.group !== groupGeneration(family, key) || generation.family === null) return false;
      return keep(family, key, stored, keepMs, generation.group, epochOf(generation.family));
    },
    async writeIfQuiet(family, key, stored, keepMs, familyGeneration) {
      const generations = familyOf(family);
      if (familyGeneration !== generations.generation) return false;
      return keep(family, key, stored, keepMs, groupGeneration(family, key), generations.epoch);
    },
    async delete(family, key) {
      moveFamily(family);
      groups.set(groupKey(family, groupOf(key)), fresh());
      entries.delete(`${family}:${key}`);
    },
    async clear(family, prefix) {
      const group = groupNamedBy(prefix);
      if (group === null) {
        const epoch = fresh();
        families.set(family, { epoch, generation: `${epoch}:${fresh()}` });
        return;
      }
      moveFamily(family);
      groups.set(groupKey(family, group), fresh());
    },
    async lead(family, key, holdMs) {
      if (leaseOf(family, key) !== null) return null;
      // Leases whose reader never wrote (an error thrown past it) go once a thousand are held.
      if (leases.size >= 1_000) for (const [at, held] of leases) if (held.until <= now()) leases.delete(at);
      const lease = fresh();
      leases.set(`${family}:${key}`, { lease, until: now() + holdMs });
      return lease;
    },
    async poll(family, key) {
      return { ...(await store.read(family, key)), leased: leaseOf(family, key) !== null };
    },
    async release(family, key, lease) {
      release(family, key, lease);
    },
    async update(family, key, next) {
      // One step (nothing else runs between these lines): the group cannot move between the read and the write.
      const current = shown(family, key, generationOf(family, key));
      await store.delete(family, key);
      const replacement = next(current);
      if (replacement === null) return false;
      const group = groupGeneration(family, key);
      return keep(family, key, replacement.stored, replacement.keepMs, group, familyOf(family).epoch);
    },
  };
  return store;
}
