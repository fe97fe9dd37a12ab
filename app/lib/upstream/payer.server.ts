import { clientAddressKey } from "../http/client-address.server";

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

export const addressPays = (ip: string): Payer => ({ kind: "address", address: clientAddressKey(ip) });

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
