import { createClerkClient } from "@clerk/remix/api.server";
import type { Env } from "../env.server";

export type ClerkClient = ReturnType<typeof createClerkClient>;

/** Clerk's Backend API client for the process (server.ts makes one and puts it in the load context). */
export function createClerkBackend(env: Env): ClerkClient {
  return createClerkClient({
    secretKey: env.CLERK_SECRET_KEY,
    publishableKey: env.CLERK_PUBLISHABLE_KEY,
    apiUrl: env.CLERK_API_URL,
    jwtKey: env.CLERK_JWT_KEY,
  });
}
