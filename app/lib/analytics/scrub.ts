/**
 * The scrubbing rules of everything sent to PostHog, on the server and in the
 * browser alike: error messages, stack frames and page URLs.
 */

// What personal data or secrets an error's text may carry, and what stands in for it.
const PLACEHOLDERS: [RegExp, string][] = [
  [/\beyJ[\w-]*\.[\w-]+\.[\w-]*/g, "[token]"],
  [/\b(?:sk|pk)_(?:live|test)_[\w$=-]+/g, "[key]"],
  [/[\w.+-]+@[\w-]+(?:\.[\w-]+)+/g, "[email]"],
  [/\b(user|sess|org|orginv|orgmem|client|inv|sia|sua|idn|img|ins)_[A-Za-z0-9_]{3,}/g, "$1_[id]"],
  // A query string after a path or URL (`/orgs/x?q=…`, `index.js?v=1`).
  [/([\w/.%-])\?[^\s)'"`]*/g, "$1"],
];

/** Text with emails, tokens, keys, Clerk ids and query strings replaced by placeholders. */
export function scrub(text: string): string {
  return PLACEHOLDERS.reduce((out, [pattern, placeholder]) => out.replace(pattern, placeholder), text);
}

/**
 * A copy of a thrown value as an Error, its message and stack scrubbed: what
 * a report to PostHog carries, from the server or the browser. A thrown
 * string is its message; anything else that is not an Error is named by type.
 */
export function scrubbedError(thrown: unknown): Error {
  const original =
    thrown instanceof Error
      ? thrown
      : new Error(typeof thrown === "string" ? thrown : `Non-Error thrown: ${typeof thrown}`);
  const clean = new Error(scrub(original.message));
  clean.name = original.name;
  clean.stack = original.stack ? scrub(original.stack) : `${clean.name}: ${clean.message}`;
  return clean;
}

/** A URL (absolute or a path) without its query string and fragment. */
export function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/, "");
}
