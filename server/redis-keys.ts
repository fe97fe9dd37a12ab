/**
 * The format of what this release keeps in Redis. Every key it writes starts
 * with `teamwork:<format>:`, so two releases that share Redis during a rolling
 * deploy never read each other's values: a change to any key's name, value or
 * meaning moves the format on (docs/deployment.md, "Rolling deploys").
 *
 * Three names are outside it, on purpose, shared by the releases so that
 * what they guard holds across a deploy: the coordination channel, the one
 * place two releases speak to each other (its messages only ever gain
 * fields, see coordination.ts); the rate limits' counters,
 * `teamwork:rate:…`, whose format is rate-limiter-flexible's
 * (app/lib/http/rate-limit.server.ts); and the fleet's window of Clerk
 * calls, CLERK_BUDGET_KEY, since Clerk's limit is the whole application's.
 *
 * The stores' Redis adapters (app/lib/cache/, app/lib/clerk/redis-*,
 * app/lib/upstream/redis-call-window.server.ts) know none of these names:
 * server/services.ts hands each its own.
 *
 * Format 1 is the release before this one, which had no number in its keys.
 */
export const REDIS_FORMAT = 2;

/** `teamwork:2:<name>`: a key of this release's format. */
export const redisKey = (name: string) => `teamwork:${REDIS_FORMAT}:${name}`;

/**
 * The shared caches' prefixes: this format's, and format 1's (no number),
 * whose generations a forget also moves while both releases run
 * (app/lib/cache/redis-store.server.ts).
 */
export const CACHE_PREFIXES = { current: redisKey(""), previous: "teamwork:" };

/**
 * The fleet's window of Clerk calls (app/lib/upstream/redis-call-window.server.ts):
 * two releases side by side during a rolling deploy count in one window, not
 * one each. The windows are lists hash-tagged with this name
 * (`{teamwork:clerk-budget}:calls…`); the name itself is the release before's
 * sorted set, counted while it exists. A release that changes what is kept
 * again counts the previous shape the same way for one release.
 */
export const CLERK_BUDGET_KEY = "teamwork:clerk-budget";

/** Channel of the messages instances send each other, shared by every release. */
export const COORDINATION_CHANNEL = "teamwork:coordination";
