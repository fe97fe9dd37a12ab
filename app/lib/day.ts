const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/**
 * A day as English's medium date style writes it in UTC ("Nov 25, 2026"), the
 * same on the server and in the browser. Not `Intl.DateTimeFormat`: its first
 * construction in a page loads ICU's date and time-zone data, about 45 ms of
 * main-thread time in a phone-sized Chromium here (×4 on Lighthouse's phone),
 * for a string this short. tests/unit/day.test.ts holds it to Intl's output.
 */
export function formatDay(epochMs: number): string {
  const date = new Date(epochMs);
  return `${MONTHS[date.getUTCMonth()]} ${date.getUTCDate()}, ${date.getUTCFullYear()}`;
}
