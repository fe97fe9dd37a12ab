import { describe, expect, it } from "vitest";
import { Store } from "../../src/state/store";

describe("Store.write, the one write path", () => {
  it("tells the listeners once for a write, however many changes inside it say they changed", () => {
    const store = new Store(null);
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    store.write(() => {
      store.changed();
      store.write(() => store.changed());
    });
    expect(told).toEqual([false]);
  });

  it("tells no one when the change throws, and alone a changed() still tells at once", () => {
    const store = new Store(null);
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    expect(() =>
      store.write(() => {
        store.changed();
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(told).toEqual([]);
    store.changed();
    expect(told).toEqual([false]);
  });
});
