import { useFetcher, useLocation } from "@remix-run/react";
import { useHydrated } from "~/hooks/use-hydrated";
import { THEME_FETCHER_KEY, useThemePreference } from "~/hooks/use-theme";
import { THEME_ACTION_PATH, THEME_LABELS, THEME_PREFERENCES } from "~/lib/theme/theme";

/**
 * Light / Dark / System as a real form. Without JavaScript it posts to
 * /resources/theme and comes back to this page (`redirectTo`); with it, the
 * same form goes through the theme fetcher and the choice shows at once.
 */
export function ThemeChoices() {
  const fetcher = useFetcher({ key: THEME_FETCHER_KEY });
  const current = useThemePreference();
  const hydrated = useHydrated();
  const { pathname, search } = useLocation();
  return (
    <fetcher.Form method="post" action={THEME_ACTION_PATH} preventScrollReset>
      {hydrated ? null : <input type="hidden" name="redirectTo" value={pathname + search} />}
      {THEME_PREFERENCES.map((value) => (
        <button
          key={value}
          type="submit"
          name="theme"
          value={value}
          aria-pressed={current === value}
          className="menu-fallback-item"
        >
          {THEME_LABELS[value]}
        </button>
      ))}
    </fetcher.Form>
  );
}
