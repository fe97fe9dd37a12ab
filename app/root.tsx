import { ClerkApp, useAuth, useClerk } from "@clerk/remix";
import { rootAuthLoader } from "@clerk/remix/ssr.server";
import radixStyles from "@radix-ui/themes/styles.css";
import { Theme as RadixTheme } from "@radix-ui/themes";
import interLatin from "@fontsource-variable/inter/files/inter-latin-wght-normal.woff2";
import groteskLatin from "@fontsource-variable/space-grotesk/files/space-grotesk-latin-wght-normal.woff2";
import type { LinksFunction, LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import {
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useLoaderData,
  useRevalidator,
  useRouteError,
  useRouteLoaderData,
} from "@remix-run/react";
import { useEffect, type ReactNode } from "react";
import { ThemeProvider, useTheme, type Theme } from "~/lib/theme-provider";
import { ErrorPage } from "~/components/error-page";
import { NavBar } from "~/components/nav-bar";
import { PageLoadFallback } from "~/components/page-load-fallback";
import { ProgressBar } from "~/components/progress-bar";
import { ThemeHead } from "~/components/theme-head";
import { Analytics } from "~/components/analytics";
import { browserAnalytics, type AnalyticsSettings } from "~/lib/analytics-settings.server";
import { viewerFromClaims } from "~/lib/auth.server";
import type { OrgSummary } from "~/lib/organizations";
import { switcherOrganizations } from "~/lib/organizations.server";
import { THEME_ACTION_PATH, type ResolvedTheme } from "~/lib/theme";
import { resolveThemePreference, type ThemeState } from "~/lib/theme.server";
import { useNonce } from "~/lib/nonce";
import { useHydrated } from "~/lib/use-hydrated";
import appStyles from "~/styles/app.css";
import fontStyles from "~/styles/fonts.css";

export const links: LinksFunction = () => [
  { rel: "preload", href: interLatin, as: "font", type: "font/woff2", crossOrigin: "anonymous" },
  { rel: "preload", href: groteskLatin, as: "font", type: "font/woff2", crossOrigin: "anonymous" },
  { rel: "stylesheet", href: radixStyles },
  { rel: "stylesheet", href: fontStyles },
  { rel: "stylesheet", href: appStyles },
  { rel: "icon", href: "/favicon.svg", type: "image/svg+xml" },
];

export const meta: MetaFunction = () => [
  { title: "Teamwork" },
  { name: "description", content: "Teamwork: organizations, members and shared work in one place." },
];

export const loader = (args: LoaderFunctionArgs) =>
  rootAuthLoader(
    args,
    async ({ request, context }) => {
      const { userId, orgId } = request.auth;
      const [theme, organizations] = await Promise.all([
        resolveThemePreference(request),
        userId ? switcherOrganizations(request, userId) : null,
      ]);
      const viewer = viewerFromClaims(userId, request.auth.sessionClaims);
      return {
        theme,
        viewer,
        organizations,
        activeOrgId: orgId ?? null,
        analytics: browserAnalytics(request, context.analytics),
      };
    },
    { signInUrl: "/sign-in", signUpUrl: "/sign-up" },
  );

export type RootData = {
  theme: ThemeState;
  viewer: ReturnType<typeof viewerFromClaims>;
  /** The switcher's list; `null` when signed out or while Clerk is unavailable. */
  organizations: OrgSummary[] | null;
  activeOrgId: string | null;
  analytics: AnalyticsSettings;
};

const FALLBACK_THEME: ThemeState = { preference: "system", resolved: null };

export function Layout({ children }: { children: ReactNode }) {
  const data = useRouteLoaderData("root") as RootData | undefined;
  const theme = data?.theme ?? FALLBACK_THEME;
  const specified = theme.preference === "system" ? null : (theme.preference as Theme);
  return (
    <ThemeProvider specifiedTheme={specified} themeAction={THEME_ACTION_PATH}>
      <Document serverTheme={theme.resolved}>{children}</Document>
    </ThemeProvider>
  );
}

function Document({ serverTheme, children }: { serverTheme: ResolvedTheme | null; children: ReactNode }) {
  const [clientTheme] = useTheme();
  // Until hydration ends, render exactly what the server did; the pre-paint
  // script may already have put the OS theme on <html>.
  const hydrated = useHydrated();
  const paint = hydrated ? clientTheme : serverTheme;
  const nonce = useNonce();
  return (
    <html lang="en" className={paint ?? undefined} suppressHydrationWarning>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <ThemeHead resolved={paint} nonce={nonce} />
        <Meta />
        <Links />
      </head>
      <body>
        <RadixTheme id="theme-root" appearance="inherit" accentColor="indigo" grayColor="slate" radius="medium">
          {children}
        </RadixTheme>
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

/** Keeps the server-rendered viewer in step when Clerk signs in or out in the browser. */
function useRevalidateOnAuthChange(serverUserId: string | null) {
  const { isLoaded, userId } = useAuth();
  const { revalidate, state } = useRevalidator();
  useEffect(() => {
    if (isLoaded && state === "idle" && (userId ?? null) !== serverUserId) revalidate();
  }, [isLoaded, userId, serverUserId, revalidate, state]);
}

function App() {
  const { theme, viewer, organizations, activeOrgId, analytics } = useLoaderData<typeof loader>() as unknown as RootData;
  const clerk = useClerk();
  useRevalidateOnAuthChange(viewer?.id ?? null);
  return (
    <>
      <ProgressBar />
      <PageLoadFallback />
      <Analytics settings={analytics} userId={viewer?.id ?? null} />
      <NavBar
        viewer={viewer}
        organizations={organizations}
        activeOrgId={activeOrgId}
        themePreference={theme.preference}
        analyticsOptedOut={analytics.available ? analytics.optedOut : undefined}
        onSignOut={() => void clerk.signOut({ redirectUrl: "/" })}
      />
      <main id="main">
        <Outlet />
      </main>
    </>
  );
}

export default ClerkApp(App, {
  signInUrl: "/sign-in",
  signUpUrl: "/sign-up",
  signInFallbackRedirectUrl: "/",
  signUpFallbackRedirectUrl: "/",
});

export function ErrorBoundary() {
  const error = useRouteError();
  const data = useRouteLoaderData("root") as RootData | undefined;
  return (
    <>
      <ProgressBar />
      <NavBar
        viewer={data?.viewer ?? null}
        organizations={data?.organizations ?? null}
        activeOrgId={data?.activeOrgId ?? null}
        themePreference={data?.theme.preference ?? "system"}
      />
      <main id="main">
        <ErrorPage error={error} />
      </main>
    </>
  );
}
