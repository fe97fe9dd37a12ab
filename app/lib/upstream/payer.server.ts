import { isIPv6 } from "node:net";

/**
 * Who a Clerk call is charged to (call-budget.server): the person whose
 * request made it, the client address of anonymous work (a handshake nonce
 * with no session of Clerk's beside it), or Clerk's webhooks (reads made to
 * apply a change Clerk told of). Each has an allowance of its own, so none
 * can spend the fleet's budget for the others.
 */
export type Payer = { kind: "person"; userId: string } | { kind: "address"; address: string } | { kind: "webhooks" };

export const WEBHOOKS: Payer = { kind: "webhooks" };

export const personPays = (userId: string): Payer => ({ kind: "person", userId });

/**
 * A client address as it is charged: IPv4 as it is, IPv6 by its /64 (one
 * household or server is handed a whole /64, so its addresses are one
 * client), an IPv4-mapped IPv6 address as the IPv4 it maps.
 */
export function clientAddress(ip: string): string {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (mapped) return mapped[1]!;
  if (!isIPv6(ip)) return ip;
  return `${expandIPv6(ip).slice(0, 4).join(":")}::/64`;
}

export const addressPays = (ip: string): Payer => ({ kind: "address", address: clientAddress(ip) });

/** The eight groups of an IPv6 address, without leading zeros ("2001:db8::1" → 2001, db8, 0, 0, 0, 0, 0, 1). */
function expandIPv6(ip: string): string[] {
  const [head = "", tail] = ip.split("%")[0]!.toLowerCase().split("::") as [string, string | undefined];
  const groups = (part: string) => (part === "" ? [] : part.split(":"));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  // An embedded IPv4 tail (::ffff:1.2.3.4, 64:ff9b::1.2.3.4) is two groups.
  const last = right.length > 0 ? right : left;
  if (last.length > 0 && last[last.length - 1]!.includes(".")) {
    const octets = last.pop()!.split(".").map(Number);
    last.push(((octets[0]! << 8) | octets[1]!).toString(16), ((octets[2]! << 8) | octets[3]!).toString(16));
  }
  const zeros = tail === undefined ? [] : Array.from({ length: 8 - left.length - right.length }, () => "0");
  return [...left, ...zeros, ...right].map((group) => (parseInt(group, 16) || 0).toString(16));
}

/** The payer's name in the budget's keys and logs: `user:<id>`, `ip:<address>`, `webhooks`. */
export function payerKey(payer: Payer): string {
  switch (payer.kind) {
    case "person":
      return `user:${payer.userId}`;
    case "address":
      return `ip:${payer.address}`;
    case "webhooks":
      return "webhooks";
  }
}
