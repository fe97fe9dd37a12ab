/**
 * One JSON object per line on stdout, so log collectors can parse it. Callers
 * pass only operational fields: never tokens, cookies, emails or names.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export function logEvent(event: string, fields: LogFields = {}): void {
  if (process.env.LOG_LEVEL === "silent") return;
  process.stdout.write(logLine({ time: new Date().toISOString(), event, ...fields }));
}

// JSON.stringify escapes the controls U+0000-U+001F but leaves DEL and the C1
// controls (U+007F-U+009F) and U+2028/U+2029 raw, and some line readers end
// a line at U+0085 (NEL), U+2028 or U+2029 (Unicode's rules; Python's
// splitlines). A header's obs-text byte 0x85 reaches us as U+0085. In JSON
// text they can only be inside strings, so escaping them keeps it valid and
// its value the same.
const LINE_BREAKING = /[\u007f-\u009f\u2028\u2029]/g;

/** `record` as one log line: JSON with nothing a line reader could end a line at, and a newline. */
export function logLine(record: Record<string, unknown>): string {
  return `${escapeLineBreaking(JSON.stringify(record))}\n`;
}

/** JSON text with the characters above escaped (`\u0085`…). */
export function escapeLineBreaking(json: string): string {
  return json.replace(LINE_BREAKING, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`);
}

/**
 * The one `unexpected_error` line: a bug or an outage nobody planned for,
 * tied to its request by the id the error page shows as its reference.
 */
export function logUnexpectedError(
  request: Request,
  requestId: string | null,
  error: unknown,
  fields: LogFields = {},
): void {
  logEvent("unexpected_error", {
    request_id: requestId,
    method: request.method,
    path: new URL(request.url).pathname,
    ...fields,
    error: error instanceof Error ? error.name : typeof error,
    message: error instanceof Error ? error.message : describeValue(error),
    stack: error instanceof Error ? error.stack : undefined,
  });
}

function describeValue(value: unknown): string {
  if (typeof value !== "object" || value === null) return String(value);
  try {
    return JSON.stringify(value).slice(0, 500);
  } catch {
    return Object.prototype.toString.call(value);
  }
}
