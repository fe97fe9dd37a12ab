import { describe, expect, it } from "vitest";
import { proxyHeadersOf } from "../../src/http/proxy";

/** A request as Node parsed it: `rawHeaders` as received, `headers` as middleware left them. */
const request = (raw: [string, string][], drop: string[] = []) => {
  const headers = Object.fromEntries(raw.map(([name, value]) => [name.toLowerCase(), value]));
  for (const name of drop) delete headers[name];
  return { rawHeaders: raw.flat(), headers };
};

describe("proxyHeadersOf (what the control API refuses)", () => {
  it("finds what a proxy adds, in any case and with any value", () => {
    const found = proxyHeadersOf(
      request([
        ["Host", "127.0.0.1:4000"],
        ["X-FORWARDED-FOR", "203.0.113.7"],
        ["x-forwarded-server", "proxy"],
        ["Via", ""],
        ["Forwarded", "for=203.0.113.7"],
        ["X-Real-IP", "203.0.113.7"],
        ["Clerk-Proxy-Url", "https://app.example/__clerk"],
        ["User-Agent", "node"],
      ]),
    );
    expect(found.sort()).toEqual(
      ["clerk-proxy-url", "forwarded", "via", "x-forwarded-for", "x-forwarded-server", "x-real-ip"].sort(),
    );
  });

  it("still finds a header a host's middleware dropped (the app drops an untrusted X-Forwarded-Host)", () => {
    const req = request([["X-Forwarded-Host", "evil.example"]], ["x-forwarded-host"]);
    expect(req.headers).toEqual({});
    expect(proxyHeadersOf(req)).toEqual(["x-forwarded-host"]);
  });

  it("finds nothing on a test's direct call", () => {
    const direct = [
      ["Host", "127.0.0.1:4000"],
      ["Content-Type", "application/json"],
      ["Sec-Fetch-Mode", "cors"],
    ] as [string, string][];
    expect(proxyHeadersOf(request(direct))).toEqual([]);
  });
});
