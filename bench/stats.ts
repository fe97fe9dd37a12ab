/** Figures over the bench's rounds, and how its tables write them. */

export const fmt = (n: number, digits = 0) => n.toFixed(digits);
export const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** A figure over the rounds: its median, which targets are judged on, and its spread. */
export type Spread = { median: number; min: number; max: number };
export const spread = (values: number[]): Spread => ({
  median: median(values),
  min: Math.min(...values),
  max: Math.max(...values),
});

/** "median (min–max)" */
export const fmtSpread = (s: Spread, digits = 0) =>
  s.min === s.max ? fmt(s.median, digits) : `${fmt(s.median, digits)} (${fmt(s.min, digits)}–${fmt(s.max, digits)})`;
