import { describe, expect, it } from "vitest";
import { safeLocation, safeRedirectPath } from "~/lib/http/safe-redirect";
import { OPEN_REDIRECT_PAYLOADS } from "clerk-emulator/testing";

describe("safeRedirectPath", () => {
  it.each([
    ["/orgs", "/orgs"],
    ["/sign-in?redirect_url=%2Fuser#top", "/sign-in?redirect_url=%2Fuser#top"],
    ["/a/../b", "/b"],
  ])("keeps the same-origin path %s", (input, expected) => {
    expect(safeRedirectPath(input)).toBe(expected);
  });

  it.each([
    "https://evil.example/",
    "//evil.example/path",
    "/\\evil.example",
    "javascript:alert(1)",
    "evil",
    "",
    "/\u0000x",
    "/x\r\nSet-Cookie: a=b",
    "/" + "a".repeat(3000),
  ])("sends %j to the fallback", (input) => {
    expect(safeRedirectPath(input)).toBe("/");
  });

  // Each of these normalises to `//evil.example`, which a browser reads as another host.
  it.each([
    "/.//evil.example",
    "/..//evil.example",
    "/%2e//evil.example",
    "/%2E%2E//evil.example",
    "/a/..//evil.example",
    "/a/b/../..//evil.example",
    "/./%2e/..//evil.example/x?y#z",
  ])("never lets the dot segments of %j lead to another host", (input) => {
    expect(safeRedirectPath(input)).toBe("/");
  });

  it("uses the given fallback for non-strings", () => {
    expect(safeRedirectPath(null, "/orgs")).toBe("/orgs");
    expect(safeRedirectPath(42, "/orgs")).toBe("/orgs");
  });
});

describe("safeLocation", () => {
  const origin = "https://app.example";
  const elsewhere = ["https://clerk.app.example"];
  /** Where a browser at `origin` goes when told `location`. */
  const landsOn = (location: string) => new URL(location, `${origin}/current/page`).origin;

  it.each(OPEN_REDIRECT_PAYLOADS)("keeps %j on this origin", (payload) => {
    const safe = safeLocation(payload, { origin, elsewhere });
    expect(landsOn(safe)).toBe(origin);
    // Written as a path that no reader can take for a host.
    expect(safe.startsWith("/") && !/^\/[/\\]/.test(safe)).toBe(true);
  });

  it.each([
    ["/orgs/acme?tab=1#top", "/orgs/acme?tab=1#top"],
    ["https://app.example/orgs", "https://app.example/orgs"],
    ["https://app.example//evil.example/", "https://app.example//evil.example/"],
    ["orgs", "/orgs"],
    ["//app.example/x", "/x"],
    ["/a/./b/../c", "/a/c"],
  ])("keeps the same-origin place %j as %j", (input, expected) => {
    expect(safeLocation(input, { origin, elsewhere })).toBe(expected);
  });

  it("lets Clerk's Frontend API through whole (its handshake), and nothing like it", () => {
    const handshake = "https://clerk.app.example/v1/client/handshake?redirect_url=https%3A%2F%2Fapp.example%2F";
    expect(safeLocation(handshake, { origin, elsewhere })).toBe(handshake);
    expect(safeLocation("https://clerk.app.example.evil.example/", { origin, elsewhere })).toBe("/");
    expect(safeLocation("http://clerk.app.example/", { origin, elsewhere })).toBe("/");
    expect(safeLocation("https://user:pw@clerk.app.example/", { origin, elsewhere })).toBe("/");
  });

  it("uses the fallback for what cannot be read", () => {
    expect(safeLocation("http://[", { origin, fallback: "/orgs" })).toBe("/orgs");
    expect(safeLocation("/" + "a".repeat(9000), { origin })).toBe("/");
  });
});
