import { describe, expect, it } from "vitest";
import { formatDay } from "~/lib/day";

describe("formatDay", () => {
  const intl = new Intl.DateTimeFormat("en", { dateStyle: "medium", timeZone: "UTC" });

  it("writes every day of four years as Intl's English medium date in UTC does", () => {
    const day = 86_400_000;
    const start = Date.UTC(2023, 0, 1);
    for (let t = start; t < start + 4 * 366 * day; t += day) {
      // Late in the UTC day: a formatter using local time would show the next or previous day.
      expect(formatDay(t + day - 1)).toBe(intl.format(t + day - 1));
      expect(formatDay(t)).toBe(intl.format(t));
    }
  });

  it("keeps to UTC across the ends of years", () => {
    expect(formatDay(Date.UTC(2026, 11, 31, 23, 59, 59))).toBe("Dec 31, 2026");
    expect(formatDay(Date.UTC(2027, 0, 1, 0, 0, 0))).toBe("Jan 1, 2027");
  });
});
