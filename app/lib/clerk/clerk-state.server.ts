import type { RequestState } from "@clerk/backend/internal";
import { data } from "@remix-run/node";
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
export function withClerkState<Data extends Record<string, unknown>>(state: RequestState, loaderData: Data) {
  // Clerk's headers (cookies it refreshes, say) go with the answer, as rootAuthLoader sends them. Returned
  // with `data`, not `json`: Remix encodes the object itself, where a JSON Response (every page and every
  // navigation has this loader) was written out, read back and parsed again before being encoded.
  return data({ ...loaderData, clerkState: clerkStateOf(state) }, { headers: state.headers });
}

/** What the browser's Clerk provider starts from (app/lib/clerk/clerk-root.tsx). */
export type ClerkState = ReturnType<typeof clerkStateOf>;

function clerkStateOf(state: RequestState) {
  const env = getEnv();
  return {
    __internal_clerk_state: {
      __clerk_ssr_state: withoutFunctions(authOf(state)),
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

/** The auth object's values, without its methods (`getToken`, `has`, `debug`): what a JSON answer of it held. */
function withoutFunctions<T extends object>(auth: T) {
  return Object.fromEntries(Object.entries(auth).filter(([, value]) => typeof value !== "function")) as {
    [K in keyof T as T[K] extends (...args: never[]) => unknown ? never : K]: T[K];
  };
}
