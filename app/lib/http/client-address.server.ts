import { isIPv6 } from "node:net";

/**
 * The key a per-address limit counts a client under. IPv4 as it is (an
 * IPv4-mapped IPv6 address is its IPv4 one); IPv6 by its /64: one home or
 * server is given a whole /64, so counting single addresses would let one
 * client take 2^64 shares.
 */
export function clientAddressKey(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address, without leading zeros (`::` filled in; a zone or an IPv4 tail kept as groups). */
function expandIPv6(ip: string): string[] {
  const address = ip.split("%")[0]!.toLowerCase();
  const [head, tail] = address.includes("::") ? address.split("::") : [address, undefined];
  const groups = (part: string | undefined) => (part ? part.split(":").flatMap(ipv4AsGroups) : []);
  const start = groups(head);
  const end = groups(tail);
  const middle = tail === undefined ? [] : Array<string>(8 - start.length - end.length).fill("0");
  return [...start, ...middle, ...end].map((group) => group.replace(/^0+(?=.)/, ""));
}

function ipv4AsGroups(group: string): string[] {
  if (!group.includes(".")) return [group];
  const [a, b, c, d] = group.split(".").map(Number) as [number, number, number, number];
  return [((a << 8) | b).toString(16), ((c << 8) | d).toString(16)];
}
