import { describe, expect, it } from "vitest";
import { destinationCodeLoaded } from "~/components/page-load-fallback";
import { PAGE_LOAD_TIMEOUT_MS, PROGRESS_BAR_SETTINGS } from "~/lib/progress-settings";

const routes = [{ id: "root" }, { id: "routes/sign-in.$" }];
const matchTo = (ids: string[]) => () => ids.map((id) => ({ route: { id } }));

describe("destinationCodeLoaded", () => {
  it("is true only when every matched route module is loaded", () => {
    const win = { __remixRouter: { routes }, __remixRouteModules: { root: {}, "routes/sign-in.$": {} } };
    expect(destinationCodeLoaded(win as never, "/sign-in", matchTo(["root", "routes/sign-in.$"]))).toBe(true);
  });

  it("is false while the destination's module is missing", () => {
    const win = { __remixRouter: { routes }, __remixRouteModules: { root: {} } };
    expect(destinationCodeLoaded(win as never, "/sign-in", matchTo(["root", "routes/sign-in.$"]))).toBe(false);
  });

  it("is false when the route is not yet discovered", () => {
    const win = { __remixRouter: { routes }, __remixRouteModules: { root: {} } };
    expect(destinationCodeLoaded(win as never, "/new", () => null)).toBe(false);
  });
});

describe("the specification's numbers", () => {
  it("are the ones in one place", () => {
    expect(PROGRESS_BAR_SETTINGS).toEqual({
      minimum: 0.08,
      speed: 200,
      trickleRate: 0.02,
      trickleSpeed: 800,
      showSpinner: false,
    });
    expect(PAGE_LOAD_TIMEOUT_MS).toBe(3800);
  });
});
