/**
 * One promise handed to several waiters (concurrent misses of a cache, the
 * same read twice in a request), as each waiter's own. What it rejects with
 * may be a Response (the catalogue's 503 from `unavailable()`), whose body
 * Remix reads once for every loader that throws it: two requests, or two
 * loaders, sharing one Response made the second read fail ("Body is
 * unusable") and answer 500 instead of 503. Each waiter gets a copy, and the
 * original is never read, so a waiter that comes later can still copy it.
 */
export function waiterCopy<T>(shared: Promise<T>): Promise<T> {
  return shared.catch((error: unknown) => {
    throw error instanceof Response ? error.clone() : error;
  });
}
