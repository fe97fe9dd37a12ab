import { createCookie } from "@remix-run/node";
import { getEnv, isProduction } from "./env.server";
import {
  DEFAULT_THEME_PREFERENCE,
  isThemePreference,
  type ResolvedTheme,
  type ThemePreference,
} from "./theme";

const ONE_YEAR_IN_SECONDS = 60 * 60 * 24 * 365;

/** The client hint Chromium sends once we ask for it (`Accept-CH`). */
export const COLOR_SCHEME_HINT = "Sec-CH-Prefers-Color-Scheme";

let themeCookie: ReturnType<typeof createCookie> | undefined;

function getThemeCookie() {
  if (!themeCookie) {
    const env = getEnv();
    themeCookie = createCookie("theme", {
      maxAge: ONE_YEAR_IN_SECONDS,
      path: "/",
      sameSite: "lax",
      httpOnly: true,
      secure: isProduction(env),
      secrets: [env.SESSION_SECRET],
    });
  }
  return themeCookie;
}

/** The stored preference; a missing, tampered or unknown cookie means `system`. */
export async function readThemePreference(request: Request): Promise<ThemePreference> {
  const value: unknown = await getThemeCookie().parse(request.headers.get("Cookie"));
  return isThemePreference(value) ? value : DEFAULT_THEME_PREFERENCE;
}

export function serializeThemePreference(preference: ThemePreference): Promise<string> {
  return getThemeCookie().serialize(preference);
}

export function readColorSchemeHint(request: Request): ResolvedTheme | null {
  const hint = request.headers.get(COLOR_SCHEME_HINT)?.trim().replace(/^"|"$/g, "");
  return hint === "dark" || hint === "light" ? hint : null;
}

export type ThemeState = {
  preference: ThemePreference;
  /** What the server can already paint: the explicit choice, or the OS hint for `system`. */
  resolved: ResolvedTheme | null;
};

export async function resolveThemePreference(request: Request): Promise<ThemeState> {
  const preference = await readThemePreference(request);
  const resolved = preference === "system" ? readColorSchemeHint(request) : preference;
  return { preference, resolved };
}

/** Headers that make Chromium send the OS colour scheme with every document request. */
export const colorSchemeHintHeaders: Record<string, string> = {
  "Accept-CH": COLOR_SCHEME_HINT,
  "Critical-CH": COLOR_SCHEME_HINT,
  Vary: COLOR_SCHEME_HINT,
};
