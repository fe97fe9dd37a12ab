declare global {
  interface Window {
    /** What keptAcrossHotUpdates holds, by name: window outlives every import of a module. */
    __keptAcrossHotUpdates?: Map<string, unknown>;
  }
}

/**
 * `value` the first time, under `npm run dev` in the browser; the value first
 * given under `name` every time after, though its module is imported afresh
 * by a hot update. React Refresh then updates that first function in place
 * with the new code, as Remix already arranges for a route's `default` and
 * `ErrorBoundary`. Elsewhere (the server, production) `value` itself.
 */
export function keptAcrossHotUpdates<T>(name: string, value: T): T {
  if (process.env.NODE_ENV !== "development" || typeof window === "undefined") return value;
  const kept = (window.__keptAcrossHotUpdates ??= new Map());
  if (!kept.has(name)) kept.set(name, value);
  return kept.get(name) as T;
}
