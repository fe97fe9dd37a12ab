import { describe, expect, it } from "vitest";
import {
  InvalidUpstreamBaseError,
  MAX_UPSTREAM_PATH_LENGTH,
  UnsafeUpstreamPathError,
  upstreamUrls,
} from "~/lib/upstream/upstream-url.server";

const posthog = upstreamUrls("https://us.i.posthog.com");
const selfHosted = upstreamUrls("https://analytics.example.com/posthog");

describe("upstreamUrls: plain paths", () => {
  it.each([
    ["e/", "", "https://us.i.posthog.com/e/"],
    ["i/v0/e/", "?ip=0&ver=1.434.18", "https://us.i.posthog.com/i/v0/e/?ip=0&ver=1.434.18"],
    ["v1/users", "", "https://us.i.posthog.com/v1/users"],
    ["", "", "https://us.i.posthog.com/"],
    ["a.b/c~d_e-f", "", "https://us.i.posthog.com/a.b/c~d_e-f"],
    [".well-known/x", "", "https://us.i.posthog.com/.well-known/x"],
  ])("builds %j%s under the fixed origin", (path, query, expected) => {
    expect(posthog.build(path, query).href).toBe(expected);
  });

  it("keeps a base path, and builds under it", () => {
    expect(selfHosted.basePath).toBe("/posthog/");
    expect(selfHosted.build("e/", "?a=1").href).toBe("https://analytics.example.com/posthog/e/?a=1");
  });

  it("encodes a query rather than let it change the host or path", () => {
    for (const query of ["?x=@evil.example/", "?//evil.example", "?a=b c\\d", "?\n@evil.example", "?%2F%2F"]) {
      const url = posthog.build("e/", query);
      expect({ origin: url.origin, pathname: url.pathname }).toEqual({
        origin: "https://us.i.posthog.com",
        pathname: "/e/",
      });
    }
    expect(posthog.build("e/", new URLSearchParams({ next: "https://evil.example/" })).search).toBe(
      "?next=https%3A%2F%2Fevil.example%2F",
    );
  });
});

// Each of these, given to `new URL(path, "https://us.i.posthog.com/")`, names another host,
// climbs out of the base path, or means something other than its plain reading.
const NASTY_PATHS = [
  // Protocol-relative and absolute
  "//evil.example/x",
  "///evil.example/x",
  "/\\evil.example/x",
  "\\\\evil.example/x",
  "\\/evil.example/x",
  "http://evil.example/",
  "https://evil.example/",
  "HTTP://evil.example/",
  "http:evil.example",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "data:text/plain,x",
  "//169.254.169.254/latest/meta-data/",
  "//[::1]/x",
  // Percent-encoded slashes, backslashes and dots
  "%2F%2Fevil.example/x",
  "%2f%2fevil.example/x",
  "%2F/evil.example",
  "%5C%5Cevil.example/x",
  "%5c/evil.example",
  "%2e%2e/admin",
  "%2E%2E/admin",
  ".%2e/admin",
  "%2e/x",
  "e/%2e%2e/%2e%2e/admin",
  "e%2F..%2F..%2Fadmin",
  "%252F%252Fevil.example",
  // Dot segments
  "..",
  "../admin",
  "e/../../admin",
  "e/./x",
  "./x",
  ".",
  "...",
  "e/..",
  // Leading slash, empty segments
  "/e/",
  "e//x",
  "/",
  // Whitespace and control characters (the URL parser drops tabs and newlines)
  "\t//evil.example",
  "/\t/evil.example",
  "e/\n/../x",
  "e/\r\nHost: evil.example",
  " //evil.example",
  "e/ x",
  "e/\u0000",
  "e/\u00a0",
  "e/\u2028",
  // Credentials, ports, hosts
  "@evil.example/x",
  "user@evil.example",
  "user:pass@evil.example/",
  "evil.example:443/x",
  "localhost:80",
  "127.0.0.1:8080/x",
  // Query, fragment and other reserved characters in the path
  "e/?x=1",
  "e/#x",
  "e/;x",
  "e/[x]",
  "e/<script>",
  "e/ü",
  // Too long
  "a".repeat(MAX_UPSTREAM_PATH_LENGTH + 1),
  `${"a/".repeat(MAX_UPSTREAM_PATH_LENGTH)}x`,
];

describe("upstreamUrls: nasty paths", () => {
  it.each(NASTY_PATHS)("refuses %j", (path) => {
    expect(() => posthog.build(path)).toThrow(UnsafeUpstreamPathError);
    expect(() => selfHosted.build(path)).toThrow(UnsafeUpstreamPathError);
  });

  it("refuses a query that carries a fragment", () => {
    expect(() => posthog.build("e/", "?a=1#x")).toThrow(UnsafeUpstreamPathError);
  });

  it("refuses what is not a string", () => {
    expect(() => posthog.build(undefined as unknown as string)).toThrow(UnsafeUpstreamPathError);
  });

  it("takes a path at the length limit", () => {
    expect(posthog.build("a".repeat(MAX_UPSTREAM_PATH_LENGTH)).pathname).toHaveLength(MAX_UPSTREAM_PATH_LENGTH + 1);
  });
});

describe("upstreamUrls: the base URL", () => {
  it.each([
    "us.i.posthog.com",
    "/ingest",
    "ftp://posthog.example/",
    "javascript:alert(1)",
    "file:///tmp/x",
    "https://user:pass@posthog.example/",
    "https://posthog.example/?x=1",
    "https://posthog.example/?",
    "https://posthog.example/#x",
    "https://posthog.example/a%2Fb/",
    "https://posthog.example//evil.example/",
  ])("refuses %j", (base) => {
    expect(() => upstreamUrls(base)).toThrow(InvalidUpstreamBaseError);
  });

  it.each([
    ["https://us.i.posthog.com", "https://us.i.posthog.com", "/"],
    ["https://us.i.posthog.com/", "https://us.i.posthog.com", "/"],
    ["http://127.0.0.1:8000", "http://127.0.0.1:8000", "/"],
    ["https://analytics.example.com/posthog/", "https://analytics.example.com", "/posthog/"],
  ])("takes %j", (base, origin, basePath) => {
    expect(upstreamUrls(base)).toMatchObject({ origin, basePath });
  });
});
