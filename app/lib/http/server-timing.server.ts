/**
 * One request's `Server-Timing` (as browsers' developer tools show it): the
 * time spent checking the session (`auth`), waiting on upstream APIs
 * (`upstream`, the sum of its calls, which may overlap) and rendering
 * (`render`, added by entry.server).
 */
export type ServerTiming = {
  time<T>(metric: "auth" | "upstream", work: () => Promise<T>): Promise<T>;
  header(extra?: Record<string, number>): string;
};

export function createServerTiming(now: () => number = () => performance.now()): ServerTiming {
  const totals = new Map<string, { ms: number; calls: number }>();
  return {
    async time(metric, work) {
      const start = now();
      try {
        return await work();
      } finally {
        const total = totals.get(metric) ?? { ms: 0, calls: 0 };
        total.ms += now() - start;
        total.calls += 1;
        totals.set(metric, total);
      }
    },
    header(extra = {}) {
      const parts = [...totals].map(
        ([name, { ms, calls }]) => `${name};dur=${ms.toFixed(1)};desc="${calls} ${calls === 1 ? "call" : "calls"}"`,
      );
      for (const [name, ms] of Object.entries(extra)) parts.push(`${name};dur=${ms.toFixed(1)}`);
      return parts.join(", ");
    },
  };
}
