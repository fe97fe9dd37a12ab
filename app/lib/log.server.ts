/**
 * One JSON object per line on stdout, so log collectors can parse it. Callers
 * pass only operational fields: never tokens, cookies, emails or names.
 */
export type LogFields = Record<string, string | number | boolean | null | undefined>;

export function logEvent(event: string, fields: LogFields = {}): void {
  if (process.env.LOG_LEVEL === "silent") return;
  process.stdout.write(`${JSON.stringify({ time: new Date().toISOString(), event, ...fields })}\n`);
}
