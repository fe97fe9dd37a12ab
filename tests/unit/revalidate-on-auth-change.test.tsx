// @vitest-environment happy-dom
import { renderHook } from "@testing-library/react";
import { describe, expect, it } from "vitest";
import { useRevalidateOnAuthChange } from "~/hooks/use-revalidate-on-auth-change";

type State = "idle" | "loading";

/** A revalidator like Remix's: `revalidate()` goes loading, and the test decides when it is idle again. */
function fakeRevalidator() {
  const revalidator = { state: "idle" as State, calls: 0, revalidate: () => undefined as void };
  revalidator.revalidate = () => {
    revalidator.calls += 1;
    revalidator.state = "loading";
  };
  return revalidator;
}

type Props = { serverUserId: string | null; clientUserId: string | null | undefined; clientLoaded: boolean };

function setup(initial: Props) {
  const revalidator = fakeRevalidator();
  const hook = renderHook((props: Props) => useRevalidateOnAuthChange({ ...props, revalidator: { ...revalidator } }), {
    initialProps: initial,
  });
  /** One round of Remix loading the data again: loading, then idle with what the server now says. */
  const settle = (props: Props) => {
    hook.rerender(props);
    revalidator.state = "idle";
    hook.rerender(props);
  };
  return { revalidator, hook, settle };
}

describe("useRevalidateOnAuthChange", () => {
  it("does nothing while clerk-js has not loaded, or when both sides agree", () => {
    const { revalidator, hook } = setup({ serverUserId: null, clientUserId: "user_1", clientLoaded: false });
    hook.rerender({ serverUserId: "user_1", clientUserId: "user_1", clientLoaded: true });
    expect(revalidator.calls).toBe(0);
  });

  it("loads the page's data again once when someone signs in in the browser", () => {
    const { revalidator, settle } = setup({ serverUserId: null, clientUserId: "user_1", clientLoaded: true });
    expect(revalidator.calls).toBe(1);
    settle({ serverUserId: "user_1", clientUserId: "user_1", clientLoaded: true });
    expect(revalidator.calls).toBe(1);
  });

  it("stops after one try when the server keeps disagreeing (wrong key, clock skew)", () => {
    const { revalidator, settle } = setup({ serverUserId: null, clientUserId: "user_1", clientLoaded: true });
    for (let round = 0; round < 5; round++) settle({ serverUserId: null, clientUserId: "user_1", clientLoaded: true });
    expect(revalidator.calls).toBe(1);
  });

  it("tries again for a different person, and after signing out", () => {
    const { revalidator, settle } = setup({ serverUserId: null, clientUserId: "user_1", clientLoaded: true });
    settle({ serverUserId: "user_1", clientUserId: "user_1", clientLoaded: true });
    settle({ serverUserId: "user_1", clientUserId: null, clientLoaded: true });
    expect(revalidator.calls).toBe(2);
    settle({ serverUserId: null, clientUserId: "user_2", clientLoaded: true });
    expect(revalidator.calls).toBe(3);
  });
});
