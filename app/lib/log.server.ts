/**
 * One JSON object per line on stdout, so log collectors can parse it. Callers
 * pass only operational fields: never tokens, cookies, emails or names.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export function logEvent(event: string, fields: LogFields = {}): void {
  if (process.env.LOG_LEVEL === "silent") return;
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
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
