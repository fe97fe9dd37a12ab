import { DropdownMenu, IconButton } from "@radix-ui/themes";
import { useLocation } from "@remix-run/react";
import { useHydrated } from "~/hooks/use-hydrated";
import { useSetTheme, useThemePreference } from "~/hooks/use-theme";
import { THEME_ACTION_PATH, THEME_PREFERENCES, isThemePreference, type ThemePreference } from "~/lib/theme/theme";
import { ThemeIcon } from "./icons";
import { MenuFallback } from "./menu-fallback";

const LABELS: Record<ThemePreference, string> = { light: "Light", dark: "Dark", system: "System" };

/**
 * Light / Dark / System. Without JavaScript (and before hydration) a
 * disclosure holding a real form that posts to /resources/theme and comes back
 * here; with it, a Radix dropdown submitting the same form through a fetcher,
 * shown at once.
 */
export function ThemeMenu() {
  const hydrated = useHydrated();
  const current = useThemePreference();
  const setTheme = useSetTheme();
  const { pathname, search } = useLocation();
  const label = `Theme: ${LABELS[current]}`;

  if (!hydrated) {
    return (
      <MenuFallback
        label={label}
        trigger={<ThemeIcon preference={current} />}
        heading="Theme"
        testId="theme-menu-fallback"
      >
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
      </MenuFallback>
    );
  }

  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger>
        <IconButton
          variant="ghost"
          color="gray"
          size="3"
          aria-label={label}
          title={label}
          data-testid="theme-menu-trigger"
        >
          <ThemeIcon preference={current} />
        </IconButton>
      </DropdownMenu.Trigger>
      <DropdownMenu.Content align="end">
        <DropdownMenu.Label>Theme</DropdownMenu.Label>
        <DropdownMenu.RadioGroup value={current} onValueChange={(value) => isThemePreference(value) && setTheme(value)}>
          {THEME_PREFERENCES.map((value) => (
            <DropdownMenu.RadioItem key={value} value={value}>
              {LABELS[value]}
            </DropdownMenu.RadioItem>
          ))}
        </DropdownMenu.RadioGroup>
      </DropdownMenu.Content>
    </DropdownMenu.Root>
  );
}
