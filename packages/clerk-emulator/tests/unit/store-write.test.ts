import { describe, expect, it } from "vitest";
import { storeWithDefaults } from "../support/store";

describe("Store.write, the one write path", () => {
  it("tells the listeners once for a write, however many writes are inside it", () => {
    const store = storeWithDefaults();
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    store.write(() => {
      store.createClient();
      store.write(() => store.createClient());
    });
    expect(told).toEqual([false]);
  });

  it("tells no one when the change throws", () => {
    const store = storeWithDefaults();
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    expect(() =>
      store.write(() => {
        store.createClient();
        throw new Error("refused");
      }),
    ).toThrow("refused");
    expect(told).toEqual([]);
  });

  it("refuses the store's own changes outside a write, which would tell no one", () => {
    const store = storeWithDefaults();
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    const clients = store.state.clients.length;
    expect(() => store.createClient()).toThrow("Store.createClient changes the state: call it inside store.write");
    expect(store.state.clients.length).toBe(clients);
    expect(told).toEqual([]);
  });

  it("a reset tells the listeners once, as a reset", () => {
    const store = storeWithDefaults();
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    store.reset();
    expect(told).toEqual([true]);
  });

  it("an expired session found by a read is marked so through a write", () => {
    const store = storeWithDefaults();
    const user = store.state.users[0]!;
    const session = store.write(() => store.createSession(store.createClient(), user.id, -1));
    const told: boolean[] = [];
    store.onChange((reset) => told.push(reset));
    expect(store.activeSessions(store.client(session.clientId)!)).toEqual([]);
    expect(session.status).toBe("expired");
    expect(told).toEqual([false]);
  });
});
