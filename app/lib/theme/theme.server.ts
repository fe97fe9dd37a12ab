import { createCookie } from "@remix-run/node";
import { DEFAULT_THEME_PREFERENCE, isThemePreference, type ResolvedTheme, type ThemePreference } from "./theme";

const ONE_YEAR_IN_SECONDS = 60 * 60 * 24 * 365;

/** The client hint Chromium sends once we ask for it (`Accept-CH`). */
export const COLOR_SCHEME_HINT = "Sec-CH-Prefers-Color-Scheme";

/** Headers that make Chromium send the OS colour scheme with every document request. */
export const colorSchemeHintHeaders: Record<string, string> = {
  "Accept-CH": COLOR_SCHEME_HINT,
  "Critical-CH": COLOR_SCHEME_HINT,
  Vary: COLOR_SCHEME_HINT,
};

export type ThemeState = {
  preference: ThemePreference;
  /** What the server can already paint: the explicit choice, or the OS hint for `system`. */
  resolved: ResolvedTheme | null;
};

export type ThemeStore = {
  /** The stored preference; a missing, tampered or unknown cookie means `system`. */
  read(request: Request): Promise<ThemePreference>;
  /** The preference and what the server can paint for it. */
  resolve(request: Request): Promise<ThemeState>;
  /** The Set-Cookie value that stores a preference for a year. */
  serialize(preference: ThemePreference): Promise<string>;
};

export function readColorSchemeHint(request: Request): ResolvedTheme | null {
  const hint = request.headers.get(COLOR_SCHEME_HINT)?.trim().replace(/^"|"$/g, "");
  return hint === "dark" || hint === "light" ? hint : null;
}

/** The `theme` preference in a signed cookie (HttpOnly, Lax, a year; Secure in production). */
export function createThemeStore({ secret, secure }: { secret: string; secure: boolean }): ThemeStore {
  const cookie = createCookie("theme", {
    maxAge: ONE_YEAR_IN_SECONDS,
    path: "/",
    sameSite: "lax",
    httpOnly: true,
    secure,
    secrets: [secret],
  });
  async function read(request: Request): Promise<ThemePreference> {
    const value: unknown = await cookie.parse(request.headers.get("Cookie"));
    return isThemePreference(value) ? value : DEFAULT_THEME_PREFERENCE;
  }
  return {
    read,
    async resolve(request) {
      const preference = await read(request);
      return { preference, resolved: preference === "system" ? readColorSchemeHint(request) : preference };
    },
    serialize: (preference) => cookie.serialize(preference),
  };
}
