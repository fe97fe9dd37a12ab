import { groupNamedBy, groupOf, type CacheStore, type Generation, type Read, type Stored } from "./store.server";
import { logEvent } from "../log.server";
import type { LookupResult } from "../metrics.server";
import { createShortCache, type ShortCache } from "./short-cache.server";
import { isUnavailable, keepingCallSite } from "../upstream/refusals.server";

export {
  memoryStore,
  withoutLeads,
  type CacheStore,
  type GenerationStore,
  type Generation,
  type Stored,
} from "./store.server";

/**
 * A ShortCache whose answers are also kept in a store (Redis) shared by every
 * instance, so a forget must also reach the store.
 */
export type SharedCache<Value> = ShortCache<Value> & {
  /**
   * Where the cache stands in its forgets: a `set` given an earlier mark is dropped if its key's group was
   * forgotten here since, and kept for the other instances only if nothing of the cache was forgotten anywhere.
   */
  mark(): number;
  /** Resolves once the store has carried out every forget and clear asked of this cache so far; rejects if it could not. */
  forgotten(): Promise<void>;
  /**
   * Forgets this instance's copies only: for a change another instance has
   * already dropped from the store (moving its generation on, which refuses
   * any write of a read begun here before it).
   */
  here: Pick<ShortCache<Value>, "forget" | "clear">;
  /**
   * Replaces the key's answer with `next(current)`, here and in the store, as Clerk's answer after a change
   * the app was told of (a webhook's payload): the key's group generation moves on (so any read begun before
   * is not written back, on any instance) and the new answer is kept under the new generation, fresh from now.
   * `current` is the answer kept in the store, fresh or not, and `keptAt` when it was kept (null when none; what this instance holds came
   * from the store or was refused by it). `next` returning null forgets the key instead (as `forget`), and so
   * does a change of the key's group between the read of `current` and the write (another forget or update:
   * a patch of a stale value is never kept). Resolves once the store holds it (or has forgotten it); rejects
   * if the store could not do either. The other instances' own few-second copies are not this call's
   * business (the caller tells them through server/coordination.ts, which makes them forget their local
   * copies).
   */
  update(key: string, next: (current: Value | null, keptAt: number | null) => Value | null): Promise<void>;
};

/** How long a kept answer that only displays may stand in for one Clerk cannot give (429 or 5xx after the retries). */
export const STALE_FOR_MS = 10 * 60_000;

/** How many groups an instance remembers having forgotten (past that, the oldest's forget counts for every group). */
const REMEMBERED_GROUPS = 10_000;

/*
 * Single flight across instances. Every instance misses a key at once when
 * the fleet starts cold, or just after a forget; each reading Clerk for it
 * would cost Clerk one read per instance (measured: 10 instances starting
 * with Redis empty made 5.5 reads per person). So on a miss an instance asks
 * the store for the key's lease (Redis: SET NX PX, in the key's group's slot,
 * so a Redis Cluster runs it on one node); the one that gets it reads Clerk,
 * and its write of the answer drops the lease in the same script (or its
 * release does, when it has nothing to write). The others wait: they look in
 * the store after 20, 40, 80, 160 ms and then every 250 ms, 1.5 s of waiting
 * in all (a Clerk read takes 50 to 300 ms, so most take the answer within
 * their first four looks), and take the answer as soon as it is there under
 * the key's current generation and fresh (it was just read). When a look
 * finds neither the answer nor the lease (the reader failed, or its answer
 * was refused as read before a forget), the waiter asks for the lease again
 * at once, and reads or waits; when the 1.5 s are up, or the store fails, it
 * reads Clerk itself, as before single flight. The lease lives 2 s, a little
 * more than a wait: a reader that died holds it no longer.
 *
 * The lead is the SET NX alone: the key is not read again beside it. An
 * answer that reaches the store in the one round trip between this
 * instance's miss and its lead (another reader's, finishing just then, or a
 * change's write, `update` or `set`) costs one read from Clerk more than
 * needed, and that read's write is refused if a change moved the group on:
 * a command saved on every miss, for a rare read from Clerk.
 *
 * What Redis does for it: a reader, one more command per miss (the SET NX;
 * the lease's drop rides in its write's script). A waiter, the same, then
 * one look per pause, at most nine, each one MGET of the answer, its
 * group's generation and lease (two MGETs sent at once on a cluster: the
 * family's generation is in another slot); after a lost lease, one lead
 * more. On one Redis a waiter sends at most 11 commands in its 1.5 s (its
 * read, its lead, nine looks), and 1 more for each look that finds the
 * lease gone, whatever the size of the fleet.
 */
/** The pauses between a waiter's looks in the store: 1.5 s in all. */
const WAITS_MS = [20, 40, 80, 160, 250, 250, 250, 250, 200];
/** How long a reader's lease lasts when it is not dropped (its process died mid-read). */
const LEASE_MS = 2_000;

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A cache of Backend API answers (the app's own small shapes) in two levels:
 * - this instance's, for `localTtlMs`: concurrent misses for a key share one
 *   read, and a failed read is not kept;
 * - the store's, for `sharedTtlMs` (minutes where Clerk's webhooks say what
 *   changed, else seconds), shared by all instances through Redis.
 * An answer is kept `STALE_FOR_MS` in all (or what `keepMs` says): when Clerk
 * is unavailable, a page gets the last answer up to 10 minutes old instead of
 * a 503, unless the cache `authorizes` (what it holds says who may see or
 * change something): such a copy counts only within its fresh lifetime,
 * whatever Clerk's state, and past it the lookup fails as Clerk's read did.
 */
export function createCache<Value>({
  name,
  localTtlMs,
  sharedTtlMs,
  authorizes = false,
  keepMs,
  store,
  onLookup = () => undefined,
  onKept = () => undefined,
  now = Date.now,
  pause = sleep,
}: {
  name: string;
  localTtlMs: number;
  sharedTtlMs: number;
  /** Whether its answers grant access: then never served past `sharedTtlMs`, even when Clerk fails. */
  authorizes?: boolean;
  /** How long the store keeps an answer, when not the longer of `sharedTtlMs` and STALE_FOR_MS. */
  keepMs?: (key: string, value: Value) => number | undefined;
  store: CacheStore;
  onLookup?: (result: LookupResult) => void;
  /** Each answer this cache has kept in the store (a miss written, `set`, `update`), once the store has it. */
  onKept?: (key: string, value: Value) => void;
  now?: () => number;
  /** Waits `ms` between a waiter's looks in the store (tests pass their clock's). */
  pause?: (ms: number) => Promise<void>;
}): SharedCache<Value> {
  const local = createShortCache<Value>({ ttlMs: localTtlMs, now, onLookup: (hit) => hit && onLookup("hit") });
  // What this instance forgot, as ticks of a counter: a read begun at tick t
  // is not written back if its group (or every group) was forgotten here
  // since. (The store refuses it if another instance forgot it meanwhile.)
  let ticks = 0;
  let everyGroupAt = 0;
  const groupAt = new Map<string, number>();
  const forgetHere = (group: string | null) => {
    const tick = ++ticks;
    if (group === null) return void (everyGroupAt = tick);
    groupAt.delete(group);
    groupAt.set(group, tick);
    if (groupAt.size <= REMEMBERED_GROUPS) return;
    // (Maps keep insertion order: the first is the longest ago.)
    const [oldest, at] = groupAt.entries().next().value as [string, number];
    groupAt.delete(oldest);
    everyGroupAt = Math.max(everyGroupAt, at);
  };
  const forgottenSince = (key: string, tick: number) => Math.max(everyGroupAt, groupAt.get(groupOf(key)) ?? 0) > tick;
  // The family's generation as last read here, and the tick it was first read
  // at: a value read with another (`set`) has no generation of its own read,
  // and is kept under the family's only if that was read before it was.
  let family: { generation: string; at: number } | null = null;
  const see = (generation: Generation) => {
    if (generation.family !== null && generation.family !== family?.generation) {
      family = { generation: generation.family, at: ++ticks };
    }
  };
  // The store's deletes under way, each settled to its error (or null): the
  // webhook path waits for them before telling the other instances, and
  // fails if one failed; a page's forget does not wait, and drops the error.
  const deleting = new Set<Promise<unknown>>();
  const deleteInStore = (work: Promise<void>) => {
    const failure = work.then(
      () => null,
      (error: unknown) => error ?? new Error("The store could not forget."),
    );
    deleting.add(failure);
    void failure.then(() => deleting.delete(failure));
  };

  const kept = (key: string, value: Value): Stored & { keepMs: number } => ({
    value,
    at: now(),
    keepMs: keepMs?.(key, value) ?? Math.max(sharedTtlMs, STALE_FOR_MS),
  });
  const fresh = (stored: Stored | null): stored is Stored => stored !== null && now() - stored.at < sharedTtlMs;
  const write = (key: string, value: Value, generation: Generation, lease?: string) => {
    const { keepMs: ms, ...stored } = kept(key, value);
    void store.write(name, key, stored, ms, generation, lease).then(
      (written) => written && onKept(key, value),
      () => false,
    );
  };

  async function readThrough(key: string, load: () => Promise<Value>): Promise<Value> {
    const read = await store.read(name, key).catch(() => null);
    if (read) see(read.generation);
    const stored = read?.stored ?? null;
    if (fresh(stored)) {
      onLookup("hit");
      return stored.value as Value;
    }
    const turn = read ? await awaitTurn(key, read) : { read };
    if ("value" in turn) {
      onLookup("hit");
      return turn.value;
    }
    return readClerk(key, load, turn.read, stored, turn.lease);
  }

  /**
   * Single flight (see above): the answer another instance read for the key,
   * or this instance's turn to read it, with the key's lease (none: the store
   * failed, or the wait ran out) and where the key stands now.
   */
  async function awaitTurn(key: string, read: Read): Promise<{ value: Value } | { read: Read | null; lease?: string }> {
    const since = ticks;
    let [looks, leased] = [0, false];
    for (;;) {
      if (!leased) {
        const lease = await store.lead(name, key, LEASE_MS).catch(() => undefined);
        if (lease === undefined) return { read };
        if (lease !== null) return { read, lease };
      }
      const wait = WAITS_MS[looks++];
      if (wait === undefined) return { read };
      await pause(wait);
      const look = await store.poll(name, key).catch(() => null);
      // Forgotten here meanwhile: the answer there may be the one read before (its store delete under way).
      if (!look || forgottenSince(key, since)) return { read: look ?? read };
      see(look.generation);
      if (fresh(look.stored)) return { value: look.stored.value as Value };
      ({ read, leased } = { read: look, leased: look.leased });
    }
  }

  async function readClerk(
    key: string,
    load: () => Promise<Value>,
    read: Read | null,
    stored: Stored | null,
    lease: string | undefined,
  ): Promise<Value> {
    // What the answer is kept under, set before Clerk is asked (none when the store cannot say).
    const complete = read && read.generation.group !== null && read.generation.family !== null;
    const generation = complete ? read.generation : read && (await store.start(name, key).catch(() => null));
    if (generation) see(generation);
    const release = () => {
      if (lease !== undefined) void store.release(name, key, lease).catch(() => undefined);
    };
    try {
      const since = ticks;
      const value = await load();
      onLookup("miss");
      if (generation && !forgottenSince(key, since)) write(key, value, generation, lease);
      else release();
      return value;
    } catch (error) {
      release();
      if (!stored || now() - stored.at >= STALE_FOR_MS || !isUnavailable(error)) throw error;
      const result = authorizes ? "too_old_to_authorize" : "stale";
      onLookup(result);
      logEvent(`cache_${result}`, { cache: name, age_s: Math.round((now() - stored.at) / 1000) });
      if (authorizes) throw error;
      return stored.value as Value;
    }
  }

  // This instance's copies only (what a change another instance dropped from the store leaves here).
  const here = {
    forget(key: string) {
      forgetHere(groupOf(key));
      local.forget(key);
    },
    clear(prefix = "") {
      forgetHere(groupNamedBy(prefix));
      local.clear(prefix);
    },
  };

  return {
    get: (key, load) => local.get(key, () => keepingCallSite(() => readThrough(key, load))),
    set(key, value, mark = ticks) {
      // Read before its group was forgotten here: it may be what Clerk said before the change.
      if (forgottenSince(key, mark)) return;
      local.set(key, value);
      if (!family || family.at > mark) return;
      const { keepMs: ms, ...stored } = kept(key, value);
      void store.writeIfQuiet(name, key, stored, ms, family.generation).then(
        (written) => written && onKept(key, value),
        () => false,
      );
    },
    // This instance's copies go before the store's and again once the store is done: on a Redis
    // Cluster the store moves generations in several round trips, and a read here between them can
    // find the old answer still current (the group's generation not yet moved) and keep it.
    forget(key) {
      here.forget(key);
      deleteInStore(store.delete(name, key).finally(() => here.forget(key)));
    },
    clear(prefix = "") {
      here.clear(prefix);
      deleteInStore(store.clear(name, prefix).finally(() => here.clear(prefix)));
    },
    async update(key, next) {
      here.forget(key);
      const mark = ticks;
      let value = null as Value | null;
      const work = store.update(name, key, (current) => {
        value = current === null ? next(null, null) : next(current.value as Value, current.at);
        if (value === null) return null;
        const { keepMs: ms, ...stored } = kept(key, value);
        return { stored, keepMs: ms };
      });
      deleteInStore(work.then(() => undefined));
      // As after a forget, this instance's copy goes again once the store is done (a read meanwhile may
      // have found the old answer): replaced by the new one, unless its group was forgotten here since.
      const updated = await work.catch((error: unknown) => {
        here.forget(key);
        throw error;
      });
      if (!updated || value === null || forgottenSince(key, mark)) return void local.forget(key);
      local.set(key, value);
      onKept(key, value);
    },
    here,
    mark: () => ticks,
    async forgotten() {
      const failed = (await Promise.all(deleting)).find((failure) => failure !== null);
      if (failed !== undefined) throw failed;
    },
  };
}
