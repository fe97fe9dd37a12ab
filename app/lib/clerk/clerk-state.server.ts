import type { RequestState } from "@clerk/backend/internal";
import type { ClerkProvider } from "@clerk/clerk-react";
import type { ComponentProps } from "react";
import { data } from "@remix-run/node";
import { getEnv } from "../env.server";
import { authOf, type Auth } from "./auth.server";
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
      __clerk_ssr_state: initialStateOf(authOf(state)),
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

/** What Clerk's provider starts from in the browser (its `initialState`), as Clerk's types have it: signed in. */
export type ProviderInitialState = NonNullable<ComponentProps<typeof ClerkProvider>["initialState"]>;

/**
 * What the loader sends for it: the same fields, each null where the person
 * is signed out (or has no organization, no actor). Clerk's provider reads
 * null as "signed out" and undefined as "not loaded yet" (@clerk/shared's
 * deriveState), though its type names only the signed-in shape.
 */
export type SsrAuthState = { [K in keyof ProviderInitialState]: ProviderInitialState[K] | null };

/**
 * The auth object as Clerk's provider reads it: the session's claims and ids
 * (what `useAuth` answers before clerk-js has loaded). The resources it also
 * names (session, user, organization) are clerk-js's own, loaded in the
 * browser: a server's auth object has none, so none is sent.
 */
function initialStateOf(auth: Auth): SsrAuthState {
  return {
    sessionClaims: auth.sessionClaims,
    sessionId: auth.sessionId,
    sessionStatus: auth.sessionStatus,
    actor: auth.actor,
    userId: auth.userId,
    orgId: auth.orgId,
    orgRole: auth.orgRole,
    orgSlug: auth.orgSlug,
    orgPermissions: auth.orgPermissions,
    factorVerificationAge: auth.factorVerificationAge,
    session: undefined,
    user: undefined,
    organization: undefined,
  };
}
