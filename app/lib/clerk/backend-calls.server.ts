import type { AppLoadContext } from "@remix-run/node";
import type { ShortCache } from "../cache/short-cache.server";
import type { AppServices } from "../load-context.server";
import { readUpstream, readUpstreamOutsidePages, writeUpstream } from "../upstream/request-scope.server";
import type { ClerkClient } from "./client.server";

/**
 * A Backend API read under the upstream policy (retried, made once per `key`
 * within the request). `deferrable`: it only displays or refreshes, and may
 * wait when the fleet is busy (call-budget.server's `Priority`).
 */
export function clerkRead<T>(
  context: AppLoadContext,
  name: string,
  key: string,
  read: (clerk: ClerkClient) => Promise<T>,
  { deferrable = false } = {},
) {
  return readUpstream(context, `clerk.${name}`, key, () => read(context.clerk), deferrable ? "deferrable" : "needed");
}

/**
 * A Backend API read kept in a short cache under `key`, shaped before it is
 * kept. `fresh` forgets this instance's copy and asks Clerk again, once per
 * request (its own dedupe key, so an earlier plain read does not answer it).
 */
export function cachedClerkRead<Raw, T>(
  context: AppLoadContext,
  {
    cache,
    name,
    key,
    fresh = false,
    deferrable = false,
  }: { cache: ShortCache<T>; name: string; key: string; fresh?: boolean; deferrable?: boolean },
  read: (clerk: ClerkClient) => Promise<Raw>,
  shape: (raw: Raw) => T,
): Promise<T> {
  if (fresh) cache.forget(key);
  return cache.get(key, () => clerkRead(context, name, fresh ? `${key}|fresh` : key, read, { deferrable }).then(shape));
}

/** A Backend API write: tried once (retried if `idempotent`), a 503 response if Clerk is unavailable. */
export function clerkWrite<T>(
  context: AppLoadContext,
  name: string,
  write: (clerk: ClerkClient) => Promise<T>,
  options: { idempotent?: boolean } = {},
) {
  return writeUpstream(context, `clerk.${name}`, () => write(context.clerk), options);
}

/**
 * The ids of the people with this address: whose kept invitations an
 * invitation to it changes (Clerk's webhooks, outside any page).
 */
export async function userIdsWithEmail(
  services: Pick<AppServices, "clerk" | "backoff" | "metrics" | "clerkBudget">,
  email: string,
): Promise<string[]> {
  const { data } = await readUpstreamOutsidePages(services, "clerk.users.getUserList", () =>
    services.clerk.users.getUserList({ emailAddress: [email], limit: 10 }),
  );
  return data.map((user) => user.id);
}
