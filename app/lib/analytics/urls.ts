/** A URL (absolute or a path) without its query string and fragment. */
export function withoutQuery(url: string): string {
  return url.replace(/[?#].*$/, "");
}
