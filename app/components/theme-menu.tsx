import { useSetTheme, useThemePreference } from "~/hooks/use-theme";
import { THEME_LABELS, THEME_PREFERENCES, isThemePreference } from "~/lib/theme/theme";
import { ThemeIcon } from "./icons";
import { NavMenu } from "./nav-menu";
import { ThemeChoices } from "./theme-choices";

/** Light / Dark / System in the navigation bar: the choices as a form without JavaScript, a Radix menu with it. */
export function ThemeMenu() {
  const current = useThemePreference();
  const setTheme = useSetTheme();
  return (
    <NavMenu
      label={`Theme: ${THEME_LABELS[current]}`}
      face={<ThemeIcon preference={current} />}
      heading="Theme"
      testId="theme-menu"
      fallback={<ThemeChoices />}
      items={(Menu) => (
        <Menu.RadioGroup value={current} onValueChange={(value) => isThemePreference(value) && setTheme(value)}>
          {THEME_PREFERENCES.map((value) => (
            <Menu.RadioItem key={value} value={value}>
              {THEME_LABELS[value]}
            </Menu.RadioItem>
          ))}
        </Menu.RadioGroup>
      )}
    />
  );
}
