import type { AppLoadContext } from "@remix-run/node";
import { readUpstream, writeUpstream } from "../upstream/request-scope.server";
import type { ClerkClient } from "./client.server";

/** A Backend API read under the upstream policy (retried, made once per `key` within the request). */
export function clerkRead<T>(
  context: AppLoadContext,
  name: string,
  key: string,
  read: (clerk: ClerkClient) => Promise<T>,
) {
  return readUpstream(context, `clerk.${name}`, key, () => read(context.clerk));
}

/** A Backend API write: tried once, a 503 response if Clerk is unavailable. */
export function clerkWrite<T>(context: AppLoadContext, name: string, write: (clerk: ClerkClient) => Promise<T>) {
  return writeUpstream(context, `clerk.${name}`, () => write(context.clerk));
}
