/** Theme vocabulary shared by server and browser. */
export const THEME_PREFERENCES = ["light", "dark", "system"] as const;
export type ThemePreference = (typeof THEME_PREFERENCES)[number];
export type ResolvedTheme = Exclude<ThemePreference, "system">;

/** How each choice is named wherever it is offered. */
export const THEME_LABELS: Record<ThemePreference, string> = { light: "Light", dark: "Dark", system: "System" };

export const DEFAULT_THEME_PREFERENCE: ThemePreference = "system";
export const THEME_ACTION_PATH = "/resources/theme";

export function isThemePreference(value: unknown): value is ThemePreference {
  return typeof value === "string" && (THEME_PREFERENCES as readonly string[]).includes(value);
}

export function isResolvedTheme(value: unknown): value is ResolvedTheme {
  return value === "light" || value === "dark";
}
