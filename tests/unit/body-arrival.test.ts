import { describe, expect, it } from "vitest";
import { SlowBodies } from "../../server/body-arrival";

/** A SlowBodies on the test's clock: `at(ms)` checks at that time; `cut` lists which bodies were cut. */
function onAClock() {
  let now = 0;
  const cut: string[] = [];
  const bodies = new SlowBodies({ now: () => now, onATimer: false });
  const watch = (name: string) => bodies.watch(() => cut.push(name));
  const at = (ms: number) => {
    now = ms;
    bodies.check();
  };
  return { bodies, watch, at, cut };
}

describe("the minimum rate of a body (500 bytes a second, over 5 s)", () => {
  it("never cuts a body that keeps to it, however slowly it began", () => {
    const { watch, at, cut } = onAClock();
    const steady = watch("steady");
    for (let second = 1; second <= 30; second += 1) {
      // Nothing for the first 4 s, then 1 KB a second: 4 KB over the first window is still over the floor.
      steady.received(Math.max(0, second - 4) * 1_000 + (second >= 5 ? 1_500 : 0));
      at(second * 1_000);
    }
    expect(cut).toEqual([]);
  });

  it("cuts a body that sends nothing at the second check past its first window", () => {
    const { bodies, watch, at, cut } = onAClock();
    watch("silent");
    for (const ms of [1_000, 2_000, 3_000, 4_000]) at(ms);
    at(5_000);
    expect(cut).toEqual([]);
    at(6_000);
    expect(cut).toEqual(["silent"]);
    expect(bodies.size).toBe(0);
  });

  it("cuts a body that sent most of itself at once and then stalled, a window after its last bytes", () => {
    const { watch, at, cut } = onAClock();
    const frontLoaded = watch("front-loaded");
    frontLoaded.received(15_000);
    for (let second = 1; second <= 6; second += 1) at(second * 1_000);
    expect(cut).toEqual([]);
    at(7_000);
    expect(cut).toEqual(["front-loaded"]);
  });

  it("does not cut on one late check alone: what arrived meanwhile is counted at the next", () => {
    const { watch, at, cut } = onAClock();
    const body = watch("body");
    for (let second = 1; second <= 5; second += 1) {
      body.received(second * 1_000);
      at(second * 1_000);
    }
    // The server was busy for 3 s: the check runs before the bytes that came meanwhile are read.
    at(9_000);
    body.received(9_000);
    at(10_000);
    expect(cut).toEqual([]);
  });

  it("forgets a body once it has arrived", () => {
    const { bodies, watch, at, cut } = onAClock();
    const body = watch("arrived");
    body.received(100);
    body.stop();
    expect(bodies.size).toBe(0);
    for (let second = 1; second <= 10; second += 1) at(second * 1_000);
    expect(cut).toEqual([]);
  });
});
