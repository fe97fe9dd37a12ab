/**
 * What the shared caches keep their answers in (shared-cache.server), and the
 * store of a single instance; Redis's is server/redis-cache-store.ts.
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
  read(family: string, key: string): Promise<{ stored: Stored | null; generation: Generation }>;
  /** Starts the generations `read` found missing for the key, and says where the key now stands. */
  start(family: string, key: string): Promise<Generation>;
  /** Keeps the answer if its group is still at `generation`, atomically: whether it was kept. */
  write(family: string, key: string, stored: Stored, keepMs: number, generation: Generation): Promise<boolean>;
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
};

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
 * counter, so none repeats.
 */
export function memoryStore({ maxEntries = 5_000, maxGroups = 50_000, now = Date.now } = {}): CacheStore {
  let counter = 0;
  const next = () => String(++counter);
  const families = new Map<string, { epoch: string; generation: string }>();
  const groups = new Map<string, string>();
  const entries = new Map<string, { stored: Stored; until: number; group: string; epoch: string }>();

  const familyOf = (family: string) => {
    let generations = families.get(family);
    if (!generations) {
      const epoch = next();
      families.set(family, (generations = { epoch, generation: `${epoch}:${next()}` }));
    }
    return generations;
  };
  const groupKey = (family: string, group: string) => `${family}|${group}`;
  const groupGeneration = (family: string, key: string) => {
    const at = groupKey(family, groupOf(key));
    let generation = groups.get(at);
    if (generation === undefined) {
      if (groups.size >= maxGroups) groups.clear();
      groups.set(at, (generation = next()));
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
    generations.generation = `${generations.epoch}:${next()}`;
  };

  return {
    async read(family, key) {
      const generation = generationOf(family, key);
      const entry = entries.get(`${family}:${key}`);
      const shown =
        entry && entry.until > now() && entry.group === generation.group && entry.epoch === familyOf(family).epoch;
      return { stored: shown ? entry.stored : null, generation };
    },
    async start(family, key) {
      return generationOf(family, key);
    },
    async write(family, key, stored, keepMs, generation) {
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
      groups.set(groupKey(family, groupOf(key)), next());
      entries.delete(`${family}:${key}`);
    },
    async clear(family, prefix) {
      const group = groupNamedBy(prefix);
      if (group === null) {
        const epoch = next();
        families.set(family, { epoch, generation: `${epoch}:${next()}` });
        return;
      }
      moveFamily(family);
      groups.set(groupKey(family, group), next());
    },
  };
}
