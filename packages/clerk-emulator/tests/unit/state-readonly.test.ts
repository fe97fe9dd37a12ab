import { describe, expect, it } from "vitest";
import type { Store } from "../../src/state/store";
import { storeWithDefaults } from "../support/store";

// Issue 69: the store's state is read-only by its type outside a write. Each `@ts-expect-error` below is a write a
// handler could try; `npx tsc --noEmit` (which includes this file) fails if any of them compiles. The function is
// never called: the type check is the test.
function handlerStyleWrites(store: Store): void {
  // @ts-expect-error Assigning a list of the state.
  store.state.users = [];
  // @ts-expect-error Pushing to a list.
  store.state.passkeys.push(store.state.passkeys[0]!);
  // @ts-expect-error Changing a record found in a list.
  store.state.users[0]!.firstName = "Mallory";
  // @ts-expect-error Changing the instance's settings.
  store.state.instance.svixApp = false;
  const alias = store.state.organizations;
  // @ts-expect-error Through an alias, which the lint rule cannot see.
  alias[0]!.name = "Renamed";
  // @ts-expect-error The memory-only part: a map of tokens.
  store.memory.testingTokens.set("token", Date.now());
  // @ts-expect-error Or a verification in it.
  store.memory.emailVerifications.get("ver")!.status = "verified";
  // @ts-expect-error A look-up's list is the state's own: read-only too.
  store.all("users").push(store.all("users")[0]!);
  // @ts-expect-error The state cannot be replaced either.
  store.state = store.state;
}

describe("the store's state", () => {
  it("is changed through write, whose callback gets it mutable", () => {
    expect(handlerStyleWrites).toBeTypeOf("function");
    const store = storeWithDefaults();
    store.write((state) => {
      state.users[0]!.firstName = "Ada L.";
    });
    expect(store.state.users[0]!.firstName).toBe("Ada L.");
    store.reset();
    expect(store.state.users[0]!.firstName).not.toBe("Ada L.");
  });
});
