import { describe, expect, it } from "vitest";
import type { Analytics } from "~/lib/analytics/analytics.server";
import { browserAnalytics } from "~/lib/analytics/settings.server";

const analytics: Analytics = {
  key: "phc_test",
  capture: () => undefined,
  reportError: () => undefined,
  shutdown: async () => undefined,
};
const request = (headers: Record<string, string> = {}) => new Request("http://x/", { headers });

describe("browserAnalytics: who gets PostHog's key", () => {
  it("nobody, when the app has no analytics", () => {
    expect(browserAnalytics(request(), null)).toEqual({ available: false, key: null, optedOut: false });
  });

  it("a person who allows them", () => {
    expect(browserAnalytics(request(), analytics)).toEqual({ available: true, key: "phc_test", optedOut: false });
  });

  it.each([
    ["Do Not Track", { DNT: "1" }],
    ["Global Privacy Control", { "Sec-GPC": "1" }],
  ])("not a browser that sends %s", (_name, headers) => {
    expect(browserAnalytics(request(headers), analytics).key).toBeNull();
  });

  it("not a person who opted out, who is offered the switch back", () => {
    expect(browserAnalytics(request({ Cookie: "theme=x; analytics_opt_out=1" }), analytics)).toEqual({
      available: true,
      key: null,
      optedOut: true,
    });
  });
});
