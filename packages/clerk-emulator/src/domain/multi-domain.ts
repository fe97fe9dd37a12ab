import { newId } from "../state/ids";
import type { LinkTokenRecord, Store } from "../state/store";

/**
 * Multi-domain sync's one-time tokens (frontend/multi-domain.ts): `/v1/client/sync` makes one for the browser's
 * client and the satellite's origin, `/v1/client/link` takes it, once. Kept in the store's memory, gone with a reset.
 */

/** How long a sync's link token may wait to be opened: one redirect's worth. */
const LINK_TOKEN_TTL_MS = 60_000;

/** A new token for `link`; expired ones are dropped on the way. */
export function createLinkToken(store: Store, link: Omit<LinkTokenRecord, "expiresAt">): string {
  return store.write((_state, memory) => {
    const now = Date.now();
    for (const [token, other] of memory.linkTokens) if (other.expiresAt <= now) memory.linkTokens.delete(token);
    const token = newId("lnk", 32);
    memory.linkTokens.set(token, { ...link, expiresAt: now + LINK_TOKEN_TTL_MS });
    return token;
  });
}

/** Spends a token: what it links, or null when it is unknown or has expired (spent either way). */
export function takeLinkToken(store: Store, token: string): LinkTokenRecord | null {
  return store.write((_state, memory) => {
    const link = memory.linkTokens.get(token);
    memory.linkTokens.delete(token);
    return link && link.expiresAt > Date.now() ? link : null;
  });
}
