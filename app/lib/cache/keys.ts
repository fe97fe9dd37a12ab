/**
 * The one spelling of the caches' keys that name more than an id. An
 * organization's answers that come in several (its member directory's pages,
 * its invitations with and without links) are kept under
 * `<organization id>|<part>|…`: the store groups a key by what comes before
 * its first `|` (store.server, groupOf), so forgetting `orgPrefix(orgId)`
 * forgets all of them and no other organization's.
 */
export const orgKey = (orgId: string, ...parts: (string | number)[]): string => [orgId, ...parts].join("|");

/** What `clear` takes to forget every key `orgKey(orgId, …)` made. */
export const orgPrefix = (orgId: string): string => `${orgId}|`;
