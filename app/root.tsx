import { useAuth } from "@clerk/clerk-react";
import { Theme as RadixTheme } from "~/components/ui";
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Links,
  LiveReload,
  Meta,
  Outlet,
  Scripts,
  useLoaderData,
  useMatches,
  useRevalidator,
  useRouteError,
} from "@remix-run/react";
import { useState, type ReactNode } from "react";
import { Analytics } from "~/components/analytics";
import { ErrorPage } from "~/components/error-page";
import { Fonts } from "~/components/fonts";
import { NavBar } from "~/components/nav-bar";
import { PageLoadFallback } from "~/components/page-load-fallback";
import { PreventThemeFlash } from "~/components/prevent-theme-flash";
import { ProgressBar } from "~/components/progress-bar";
import { ScrollRestoration } from "~/components/scroll-restoration";
import { ClerkSignOutProvider } from "~/components/clerk-sign-out-provider";
import { useClerkScreenDone } from "~/hooks/use-clerk-screen-done";
import { useHydrated } from "~/hooks/use-hydrated";
import { useKeepSessionFresh } from "~/hooks/use-keep-session-fresh";
import { useRevalidateOnAuthChange } from "~/hooks/use-revalidate-on-auth-change";
import { useRootData } from "~/hooks/use-root-data";
import { useResolvedTheme, useThemeAcrossTabs } from "~/hooks/use-theme";
import { browserAnalytics } from "~/lib/analytics/settings.server";
import { authenticate, getRequestAuth } from "~/lib/clerk/auth.server";
import { withClerk } from "~/lib/clerk/clerk-root";
import { getEnv } from "~/lib/env.server";
import { clerkJsChunkSuffix } from "~/lib/clerk/clerk-js-files.server";
import { withClerkState } from "~/lib/clerk/clerk-state.server";
import { lazyClerk } from "~/lib/clerk/lazy-clerk";
import { SIGN_IN_URL, SIGN_UP_URL } from "~/lib/clerk/urls";
import { viewerFromClaims } from "~/lib/clerk/viewer";
import { useNonce } from "~/lib/http/nonce";
import { clerkScreenOf } from "~/lib/route-handle";
import { AFTER_PAINT_STYLES, afterPaintSettled } from "~/lib/after-paint";
import { keptAcrossHotUpdates } from "~/lib/kept-across-hot-updates";
import { fontsKept } from "~/lib/web-fonts";
import type { ResolvedTheme } from "~/lib/theme/theme";
import firstPaintDark from "~/styles/first-paint-dark.css";
import firstPaintLight from "~/styles/first-paint-light.css";
import firstPaintUnknown from "~/styles/first-paint-unknown.css";

export const links: LinksFunction = () => [{ rel: "icon", href: "/favicon.svg", type: "image/svg+xml" }];

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
    // How this server's clerk-js names its chunks, for the pages that open with Clerk's screens.
    clerkJsChunks: clerkJsChunkSuffix(getEnv().CLERK_JS),
    // Whether this browser has the web fonts already: preloaded then, else held back (app/lib/web-fonts.ts).
    fontsKept: fontsKept(request.headers.get("Cookie")),
  });
}

/**
 * The one stylesheet a first paint waits for, by the theme the server paints
 * (app/styles/first-paint-light.css says what is in it): the theme not shown
 * is not in it, unless the server cannot know which one the page will show.
 */
const FIRST_PAINT_STYLES: Record<ResolvedTheme | "unknown", string> = {
  light: firstPaintLight,
  dark: firstPaintDark,
  unknown: firstPaintUnknown,
};

function Document({ children }: { children: ReactNode }) {
  const rootData = useRootData();
  const theme = rootData?.theme;
  const hydrated = useHydrated();
  // On Clerk's screens after-paint.css waits for Clerk's card: a stylesheet's arrival restyles the
  // whole page, work the card's first paint does not need (app/lib/clerk-first.ts).
  const clerkScreenDone = useClerkScreenDone();
  const resolved = useResolvedTheme();
  // Until hydration ends, render exactly what the server did (the pre-paint
  // script may already have put the OS theme on <html>).
  const paint = hydrated ? resolved : (theme?.resolved ?? null);
  // The theme the server painted keeps its sheet for the page's life: after-paint.css
  // (app/lib/after-paint.ts) brings the dark tokens a later change of theme needs, and
  // another sheet would leave the page unstyled while it loaded. (Under `npm run dev`
  // an edit still changes the href.)
  const [firstPaintTheme] = useState<ResolvedTheme | "unknown">(() => theme?.resolved ?? "unknown");
  const firstPaintStyles = FIRST_PAINT_STYLES[firstPaintTheme];
  // As the server rendered it for the page's life: the head's fonts part is done with once the document has loaded.
  const [fontsKeptHere] = useState(() => rootData?.fontsKept ?? false);
  const nonce = useNonce();
  const clerkScreen = clerkScreenOf(useMatches()) !== null;
  return (
    <html lang="en" className={paint ?? undefined} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <PreventThemeFlash paint={paint} nonce={nonce} />
        <Fonts clerkScreen={clerkScreen} kept={fontsKeptHere} nonce={nonce} />
        <Meta />
        <Links />
        <link rel="stylesheet" href={firstPaintStyles} />
      </head>
      <body>
        <RadixTheme id="theme-root" appearance="inherit" accentColor="indigo" grayColor="slate" radius="medium">
          {children}
        </RadixTheme>
        <ScrollRestoration clerkScreen={clerkScreen} nonce={nonce} />
        <Scripts nonce={nonce} />
        {/* Put in once hydrated, so it holds up no paint (app/lib/after-paint.ts). */}
        {hydrated && clerkScreenDone ? (
          <link rel="stylesheet" href={AFTER_PAINT_STYLES} onLoad={afterPaintSettled} onError={afterPaintSettled} />
        ) : null}
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
      {/* The two controls that sign out are in the bar (app/components/clerk-sign-out-provider.tsx). */}
      <ClerkSignOutProvider>
        <NavBar
          viewer={viewer}
          activeOrgId={activeOrgId}
          analyticsOptedOut={analytics.available ? analytics.optedOut : undefined}
        />
      </ClerkSignOutProvider>
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}

export default withClerk(App, {
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
