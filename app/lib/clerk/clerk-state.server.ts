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
  const env = getEnv();
  const clerkState = {
    __internal_clerk_state: {
      __clerk_ssr_state: authOf(state),
      __publishableKey: state.publishableKey,
      __proxyUrl: state.proxyUrl,
      __domain: state.domain,
      __isSatellite: state.isSatellite,
      __signInUrl: SIGN_IN_URL,
      __signUpUrl: SIGN_UP_URL,
      __clerkJSUrl: env.CLERK_JS,
      __telemetryDisabled: truthy(process.env.CLERK_TELEMETRY_DISABLED),
      __telemetryDebug: truthy(process.env.CLERK_TELEMETRY_DEBUG),
    },
  };
  // Clerk's headers (cookies it refreshes, say) go with the answer, as rootAuthLoader sends them.
  return json({ ...data, clerkState }, { headers: state.headers });
}
