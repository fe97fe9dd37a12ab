import { ClerkApp, useAuth, useClerk } from "@clerk/remix";
import interLatin from "@fontsource-variable/inter/files/inter-latin-wght-normal.woff2";
import groteskLatin from "@fontsource-variable/space-grotesk/files/space-grotesk-latin-wght-normal.woff2";
import { Theme as RadixTheme } from "~/components/ui";
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRevalidator,
  useRouteError,
} from "@remix-run/react";
import type { ReactNode } from "react";
import { Analytics } from "~/components/analytics";
import { ErrorPage } from "~/components/error-page";
import { NavBar } from "~/components/nav-bar";
import { PageLoadFallback } from "~/components/page-load-fallback";
import { PreventThemeFlash } from "~/components/prevent-theme-flash";
import { ProgressBar } from "~/components/progress-bar";
import { useHydrated } from "~/hooks/use-hydrated";
import { useKeepSessionFresh } from "~/hooks/use-keep-session-fresh";
import { useRevalidateOnAuthChange } from "~/hooks/use-revalidate-on-auth-change";
import { useRootData } from "~/hooks/use-root-data";
import { useResolvedTheme, useThemeAcrossTabs } from "~/hooks/use-theme";
import { browserAnalytics } from "~/lib/analytics/settings.server";
import { authenticate, getRequestAuth } from "~/lib/clerk/auth.server";
import { withClerkState } from "~/lib/clerk/clerk-state.server";
import { lazyClerk } from "~/lib/clerk/lazy-clerk";
import { SIGN_IN_URL, SIGN_UP_URL } from "~/lib/clerk/urls";
import { viewerFromClaims } from "~/lib/clerk/viewer";
import { useNonce } from "~/lib/http/nonce";
import { keptAcrossHotUpdates } from "~/lib/kept-across-hot-updates";
import appStyles from "~/styles/app.css";
import fontStyles from "~/styles/fonts.css";
// Radix Themes' styles.css with the colour scales the app uses only (scripts/build-dark-fallback.mjs).
import radixStyles from "~/styles/radix.css";
import radixDarkFallback from "~/styles/radix-dark-fallback.css";

export const links: LinksFunction = () => [
  { rel: "preload", href: interLatin, as: "font", type: "font/woff2", crossOrigin: "anonymous" },
  { rel: "preload", href: groteskLatin, as: "font", type: "font/woff2", crossOrigin: "anonymous" },
  { rel: "stylesheet", href: radixStyles },
  // Radix's dark tokens for a page served without a theme class (the OS
  // scheme unknown to the server); inert once <html> has one. Right after
  // Radix's sheet, so the cascade is the same as for html.dark.
  { rel: "stylesheet", href: radixDarkFallback, media: "(prefers-color-scheme: dark)" },
  { rel: "stylesheet", href: fontStyles },
  { rel: "stylesheet", href: appStyles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [
  { title: "Teamwork" },
  { name: "description", content: "Teamwork: organizations, members and shared work in one place." },
];

export async function loader(args: LoaderFunctionArgs) {
  const { request, context } = args;
  const state = await authenticate(args);
  const { userId, orgId, sessionClaims } = await getRequestAuth(args);
  // Nothing here asks Clerk: the switcher loads its list itself, off every page's path.
  return withClerkState(state, {
    theme: await context.theme.resolve(request),
    viewer: viewerFromClaims(userId, sessionClaims),
    activeOrgId: orgId ?? null,
    // How long the session token has left: clerk-js is loaded in time to refresh it.
    sessionExpiresInMs: userId && sessionClaims?.exp ? sessionClaims.exp * 1000 - Date.now() : null,
    analytics: browserAnalytics(request, context.analytics),
    // The reference the 500 page shows when the document itself failed to render.
    requestId: context.requestId,
  });
}

function Document({ children }: { children: ReactNode }) {
  const theme = useRootData()?.theme;
  const hydrated = useHydrated();
  const resolved = useResolvedTheme();
  // Until hydration ends, render exactly what the server did (the pre-paint
  // script may already have put the OS theme on <html>).
  const paint = hydrated ? resolved : (theme?.resolved ?? null);
  const nonce = useNonce();
  return (
    <html lang="en" className={paint ?? undefined} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <PreventThemeFlash paint={paint} nonce={nonce} />
        <Meta />
        <Links />
      </head>
      <body>
        <RadixTheme id="theme-root" appearance="inherit" accentColor="indigo" grayColor="slate" radius="medium">
          {children}
        </RadixTheme>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
        {/* Under `npm run dev` only: remix dev's socket (live reload, hot updates). */}
        <LiveReload nonce={nonce} />
      </body>
    </html>
  );
}

// Under `npm run dev` each hot update imports this module afresh. Remix then keeps
// the root's old `default` and `ErrorBoundary`, which React Refresh updates in
// place, but renders the new module's Layout: a function React does not yet know
// as the old one's successor (React Refresh runs only once the router has settled
// on the new routes), so it remounted the whole document and every route's state
// was lost. The first Layout is kept instead, and React Refresh updates it too.
const layout = keptAcrossHotUpdates("root Layout", Document);
export { layout as Layout };

function App() {
  const { viewer, activeOrgId, analytics, sessionExpiresInMs } = useLoaderData<typeof loader>();
  const clerk = useClerk();
  const { isLoaded, userId } = useAuth();
  useRevalidateOnAuthChange({
    serverUserId: viewer?.id ?? null,
    clientUserId: userId,
    clientLoaded: isLoaded,
    revalidator: useRevalidator(),
  });
  useKeepSessionFresh(sessionExpiresInMs);
  useThemeAcrossTabs();
  return (
    <>
      <ProgressBar />
      <PageLoadFallback />
      <Analytics settings={analytics} userId={viewer?.id ?? null} />
      <NavBar
        viewer={viewer}
        activeOrgId={activeOrgId}
        analyticsOptedOut={analytics.available ? analytics.optedOut : undefined}
        // Until clerk-js is loaded (if ever, on this page), the server ends the session.
        // (useAuth's isLoaded is true from the server's state alone; clerk.loaded is clerk-js itself.)
        onSignOut={clerk.loaded ? () => void clerk.signOut({ redirectUrl: "/" }) : undefined}
      />
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}

export default ClerkApp(App, {
  signInUrl: SIGN_IN_URL,
  signUpUrl: SIGN_UP_URL,
  signInFallbackRedirectUrl: "/",
  signUpFallbackRedirectUrl: "/",
  // clerk-js is loaded when a page needs it (app/lib/clerk/lazy-clerk.ts).
  Clerk: lazyClerk,
});

export function ErrorBoundary() {
  const error = useRouteError();
  const data = useRootData();
  return (
    <>
      <ProgressBar />
      <NavBar viewer={data?.viewer ?? null} activeOrgId={data?.activeOrgId ?? null} />
      <main id="main">
        <ErrorPage error={error} />
      </main>
    </>
  );
}
