import { ClerkProvider } from "@clerk/clerk-react";
import { useLoaderData, useLocation, useNavigate } from "@remix-run/react";
import { useEffect, useRef, type ComponentProps, type ComponentType } from "react";
import type { ClerkState, ProviderInitialState, SsrAuthState } from "./clerk-state.server";

type Navigate = (to: string, options?: { replace?: boolean }) => Promise<void>;

type ProviderProps = ComponentProps<typeof ClerkProvider>;

/** The options the app gives Clerk's provider itself (the rest comes from the root loader's `clerkState`). */
type Options = Pick<
  ProviderProps,
  "signInUrl" | "signUpUrl" | "signInFallbackRedirectUrl" | "signUpFallbackRedirectUrl" | "Clerk"
>;

/**
 * The root component inside Clerk's provider, started from the root loader's
 * `clerkState` (app/lib/clerk/clerk-state.server.ts), as @clerk/remix's
 * `ClerkApp` does, but on @clerk/clerk-react's ES modules. @clerk/remix is
 * CommonJS, which esbuild cannot tree-shake: through it every page loaded the
 * whole of Clerk's React SDK (swr, the billing hooks, Stripe's elements):
 * 165.1 KB gzip on the organization home, 132.3 KB now (docs/performance.md). So the browser's code imports
 * Clerk's React SDK from @clerk/clerk-react alone: one copy, one context
 * (eslint.config.js refuses @clerk/remix in app/, but for its server entries).
 */
export function withClerk(App: ComponentType, options: Options): ComponentType {
  return function ClerkRoot() {
    const { clerkState } = useLoaderData<{ clerkState: ClerkState }>();
    const state = clerkState.__internal_clerk_state;
    const navigate = useRouterNavigate();
    return (
      <ClerkProvider
        publishableKey={state.__publishableKey}
        // (No satellite domains: this app names no domain of Clerk's, only a proxy, CLERK_PROXY_URL.)
        proxyUrl={state.__proxyUrl}
        signInUrl={state.__signInUrl}
        signUpUrl={state.__signUpUrl}
        clerkJSUrl={state.__clerkJSUrl}
        telemetry={{ disabled: state.__telemetryDisabled, debug: state.__telemetryDebug }}
        initialState={signedInOrOut(state.__clerk_ssr_state)}
        routerPush={(to) => navigate(to)}
        routerReplace={(to) => navigate(to, { replace: true })}
        {...options}
      >
        <App />
      </ClerkProvider>
    );
  };
}

/**
 * The loader's state for Clerk's provider. Its type says signed in only;
 * signed out, the same fields are null, which the provider reads as signed
 * out (SsrAuthState): a narrowing of what is sent, with nothing added.
 */
const signedInOrOut = (state: SsrAuthState): ProviderInitialState => state as ProviderInitialState;

/**
 * Remix's navigate for clerk-js's router, resolved once the location has
 * changed. Clerk's provider keeps the router it was first given, so this is
 * one function for the page's life, calling the latest navigate.
 */
function useRouterNavigate(): Navigate {
  const navigate = useNavigate();
  const location = useLocation();
  const latest = useRef({ navigate, waiting: [] as (() => void)[] });
  latest.current.navigate = navigate;
  useEffect(() => {
    for (const resolve of latest.current.waiting.splice(0)) resolve();
  }, [location]);
  const stable = useRef<Navigate>((to, options) => {
    const { current } = latest;
    return new Promise((resolve) => {
      current.waiting.push(resolve);
      void current.navigate(to, options);
    });
  });
  return stable.current;
}
