import type { RequestState } from "@clerk/backend/internal";
import { json } from "@remix-run/node";
import { getEnv } from "../env.server";
import { authOf } from "./auth.server";
import { SIGN_IN_URL, SIGN_UP_URL } from "./urls";

const truthy = (value: string | undefined) => value === "1" || value === "true";

/**
 * The root loader's answer with what `ClerkApp` reads from it (`clerkState`),
 * made from the request's one authentication: the fields and headers
 * @clerk/remix 4's `rootAuthLoader` adds, which would otherwise authenticate
 * the request a second time. The e2e suite (real clerk-js) holds this to it.
 */
export function withClerkState<Data extends Record<string, unknown>>(state: RequestState, data: Data) {
  // Clerk's headers (cookies it refreshes, say) go with the answer, as rootAuthLoader sends them.
  return json({ ...data, clerkState: clerkStateOf(state) }, { headers: state.headers });
}

/** What the browser's Clerk provider starts from (app/lib/clerk/clerk-root.tsx). */
export type ClerkState = ReturnType<typeof clerkStateOf>;

function clerkStateOf(state: RequestState) {
  const env = getEnv();
  return {
    __internal_clerk_state: {
      __clerk_ssr_state: authOf(state),
      __publishableKey: state.publishableKey,
      __proxyUrl: state.proxyUrl,
      __signInUrl: SIGN_IN_URL,
      __signUpUrl: SIGN_UP_URL,
      __clerkJSUrl: env.CLERK_JS,
      __telemetryDisabled: truthy(process.env.CLERK_TELEMETRY_DISABLED),
      __telemetryDebug: truthy(process.env.CLERK_TELEMETRY_DEBUG),
    },
  };
}
