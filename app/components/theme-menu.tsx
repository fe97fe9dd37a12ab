import { DropdownMenu } from "@radix-ui/themes";
import { useLocation } from "@remix-run/react";
import { useSetTheme, useThemePreference } from "~/hooks/use-theme";
import { THEME_ACTION_PATH, THEME_PREFERENCES, isThemePreference, type ThemePreference } from "~/lib/theme/theme";
import { ThemeIcon } from "./icons";
import { NavMenu } from "./nav-menu";

const LABELS: Record<ThemePreference, string> = { light: "Light", dark: "Dark", system: "System" };

/**
 * Light / Dark / System. Without JavaScript a real form that posts to
 * /resources/theme and comes back here; with it, the same form submitted
 * through a fetcher and shown at once.
 */
export function ThemeMenu() {
  const current = useThemePreference();
  const setTheme = useSetTheme();
  const { pathname, search } = useLocation();
  const fallback = (
    <form method="post" action={THEME_ACTION_PATH}>
      <input type="hidden" name="redirectTo" value={pathname + search} />
      {THEME_PREFERENCES.map((value) => (
        <button
          key={value}
          type="submit"
          name="theme"
          value={value}
          aria-pressed={current === value}
          className="menu-fallback-item"
        >
          {LABELS[value]}
        </button>
      ))}
    </form>
  );
  return (
    <NavMenu
      label={`Theme: ${LABELS[current]}`}
      face={<ThemeIcon preference={current} />}
      heading="Theme"
      testId="theme-menu"
      fallback={fallback}
    >
      <DropdownMenu.RadioGroup value={current} onValueChange={(value) => isThemePreference(value) && setTheme(value)}>
        {THEME_PREFERENCES.map((value) => (
          <DropdownMenu.RadioItem key={value} value={value}>
            {LABELS[value]}
          </DropdownMenu.RadioItem>
        ))}
      </DropdownMenu.RadioGroup>
    </NavMenu>
  );
}
