import { DropdownMenu, IconButton } from "@radix-ui/themes";
import { useLocation } from "@remix-run/react";
import { Theme as ResolvedThemeName, useTheme } from "~/lib/theme-provider";
import { THEME_ACTION_PATH, isThemePreference, type ThemePreference } from "~/lib/theme";
import { useHydrated } from "~/lib/use-hydrated";
import { ThemeIcon } from "./icons";

const OPTIONS: { value: ThemePreference; label: string }[] = [
  { value: "light", label: "Light" },
  { value: "dark", label: "Dark" },
  { value: "system", label: "System" },
];

/** The preference currently in force, as the menu shows it. */
export function useThemePreference(): ThemePreference {
  const [theme, , { definedBy }] = useTheme();
  return definedBy === "SYSTEM" || !theme ? "system" : theme;
}

/**
 * Light / Dark / System. Before hydration (or with JavaScript off) it is a
 * disclosure holding a real form posting to /resources/theme; afterwards a
 * Radix dropdown whose choice applies at once and follows in other tabs.
 */
export function ThemeMenu({ serverPreference }: { serverPreference: ThemePreference }) {
  const hydrated = useHydrated();
  const preference = useThemePreference();
  const [, setTheme] = useTheme();
  const location = useLocation();
  const current = hydrated ? preference : serverPreference;
  const label = `Theme: ${OPTIONS.find((o) => o.value === current)?.label ?? "System"}`;

  if (!hydrated) {
    return (
      <details className="menu-fallback" data-testid="theme-menu-fallback">
        <summary className="menu-fallback-trigger" aria-label={label} title={label}>
          <ThemeIcon preference={current} />
        </summary>
        <form method="post" action={THEME_ACTION_PATH} className="menu-fallback-panel">
          <input type="hidden" name="redirectTo" value={location.pathname + location.search} />
          <p className="menu-fallback-heading" id="theme-fallback-heading">
            Theme
          </p>
          {OPTIONS.map((option) => (
            <button
              key={option.value}
              type="submit"
              name="theme"
              value={option.value}
              aria-pressed={current === option.value}
              className="menu-fallback-item"
            >
              {option.label}
            </button>
          ))}
        </form>
      </details>
    );
  }

  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger>
        <IconButton variant="ghost" color="gray" size="3" aria-label={label} title={label} data-testid="theme-menu-trigger">
          <ThemeIcon preference={current} />
        </IconButton>
      </DropdownMenu.Trigger>
      <DropdownMenu.Content align="end">
        <DropdownMenu.Label>Theme</DropdownMenu.Label>
        <DropdownMenu.RadioGroup
          value={current}
          onValueChange={(value) => {
            if (!isThemePreference(value)) return;
            // remix-themes applies the change at once, tells other tabs and
            // posts it to THEME_ACTION_PATH (null means "follow the system").
            setTheme(value === "system" ? null : (value as ResolvedThemeName));
          }}
        >
          {OPTIONS.map((option) => (
            <DropdownMenu.RadioItem key={option.value} value={option.value}>
              {option.label}
            </DropdownMenu.RadioItem>
          ))}
        </DropdownMenu.RadioGroup>
      </DropdownMenu.Content>
    </DropdownMenu.Root>
  );
}
