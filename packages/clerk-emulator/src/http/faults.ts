/**
 * Fault injection and call counting, keyed by endpoint ("fapi GET /v1/client",
 * "bapi GET /v1/organizations/:id/memberships"). Tests arm a fault for the
 * next N calls of an endpoint and read how many calls each one received.
 */
export type FaultMode = "error" | "hang" | "slow" | "reset";

export type Fault = {
  endpoint: string;
  mode: FaultMode;
  times: number;
  status: number;
  delayMs: number;
  retryAfter?: string;
  /** Only calls whose path contains this (an id, say) consume the fault; tests running side by side stay apart. */
  pathIncludes?: string;
};

export class Faults {
  private faults: Fault[] = [];
  private counts = new Map<string, number>();
  private held = new Set<{ destroy(): void }>();

  /** Keeps a "hang" call's socket until it closes or `releaseHeld` runs (at shutdown). */
  hold(socket: { destroy(): void; once(event: "close", listener: () => void): unknown }): void {
    this.held.add(socket);
    socket.once("close", () => this.held.delete(socket));
  }

  releaseHeld(): void {
    for (const socket of this.held) socket.destroy();
    this.held.clear();
  }

  arm(input: Partial<Fault> & { endpoint: string; mode: FaultMode }): Fault {
    const fault: Fault = {
      endpoint: input.endpoint,
      mode: input.mode,
      times: Math.max(1, Math.min(input.times ?? 1, 10_000)),
      status: input.status ?? 503,
      delayMs: Math.max(0, Math.min(input.delayMs ?? 1_000, 120_000)),
      retryAfter: input.retryAfter,
      pathIncludes: typeof input.pathIncludes === "string" && input.pathIncludes ? input.pathIncludes : undefined,
    };
    this.faults.push(fault);
    return fault;
  }

  clear(): void {
    this.faults = [];
    this.counts.clear();
  }

  count(endpoint: string): void {
    this.counts.set(endpoint, (this.counts.get(endpoint) ?? 0) + 1);
  }

  calls(): Record<string, number> {
    return Object.fromEntries(this.counts);
  }

  /** The fault to apply to this call, if one is armed; uses up one of its `times`. */
  take(endpoint: string, path = ""): Fault | null {
    const fault = this.faults.find(
      (f) => f.endpoint === endpoint && f.times > 0 && (!f.pathIncludes || path.includes(f.pathIncludes)),
    );
    if (!fault) return null;
    fault.times -= 1;
    if (fault.times === 0) this.faults = this.faults.filter((f) => f !== fault);
    return fault;
  }

  armed(): Fault[] {
    return this.faults.map((f) => ({ ...f }));
  }
}
