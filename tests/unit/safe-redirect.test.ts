import { describe, expect, it } from "vitest";
import { safeRedirectPath } from "~/lib/http/safe-redirect";

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
