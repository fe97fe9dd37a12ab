import { describe, expect, it } from "vitest";
import { clientAddressKey } from "~/lib/http/client-address.server";

describe("clientAddressKey", () => {
  it("keeps an IPv4 address, and unwraps one mapped into IPv6", () => {
    expect(clientAddressKey("203.0.113.9")).toBe("203.0.113.9");
    expect(clientAddressKey("::ffff:203.0.113.9")).toBe("203.0.113.9");
  });

  it("counts an IPv6 client by its /64, however the address is written", () => {
    const key = "2001:db8:1:2::/64";
    expect(clientAddressKey("2001:db8:1:2:3:4:5:6")).toBe(key);
    expect(clientAddressKey("2001:0db8:0001:0002::ffff")).toBe(key);
    expect(clientAddressKey("2001:DB8:1:2:ffff:ffff:ffff:ffff")).toBe(key);
    expect(clientAddressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(clientAddressKey("fe80::1%eth0")).toBe("fe80:0:0:0::/64");
    expect(clientAddressKey("2001:db8:1:3::1")).not.toBe(key);
    expect(clientAddressKey("::1")).toBe("0:0:0:0::/64");
    // NAT64: the embedded IPv4 address is in the interface half; the /64 is the translator's.
    expect(clientAddressKey("64:ff9b::198.51.100.4")).toBe("64:ff9b:0:0::/64");
  });
});
