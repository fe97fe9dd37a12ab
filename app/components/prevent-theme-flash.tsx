// remix-themes' index also loads its server helpers, and with them all of
// @remix-run/server-runtime (13 KB gzipped) into the browser; the provider
// module holds everything used here.
import { PreventFlashOnWrongTheme, Theme, ThemeProvider } from "remix-themes/build/theme-provider.js";
import type { ResolvedTheme } from "~/lib/theme/theme";
import { THEME_ACTION_PATH } from "~/lib/theme/theme";

const REMIX_THEMES: Record<ResolvedTheme, Theme> = { light: Theme.LIGHT, dark: Theme.DARK };

/**
 * remix-themes' `<meta name="color-scheme">` and, when the server could not
 * know the OS setting ("system" without a client hint), its pre-paint script,
 * which applies it before the first frame (without JavaScript the CSS does:
 * radix-dark-fallback.css, docs/browsers.md). The provider only carries `paint`
 * to it (remix-themes reads its theme once, hence the key); what the page
 * shows comes from the root data and the theme fetcher.
 */
export function PreventThemeFlash({ paint, nonce }: { paint: ResolvedTheme | null; nonce: string }) {
  return (
    <ThemeProvider
      key={paint ?? "unknown"}
      specifiedTheme={paint ? REMIX_THEMES[paint] : null}
      themeAction={THEME_ACTION_PATH}
    >
      <PreventFlashOnWrongTheme ssrTheme={paint !== null} nonce={nonce} />
    </ThemeProvider>
  );
}
