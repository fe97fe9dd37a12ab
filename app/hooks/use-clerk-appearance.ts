import { dark } from "@clerk/themes";
import { useResolvedTheme } from "./use-theme";

const variables = {
  colorPrimary: "#3e63dd",
  fontFamily: '"Inter Variable", "Inter Fallback", system-ui, sans-serif',
  borderRadius: "0.5rem",
};

/** Clerk's components dressed to match the current light/dark theme. */
export function useClerkAppearance() {
  const theme = useResolvedTheme();
  // Danger actions (leave, delete) in reds that keep WCAG AA contrast: Radix's
  // red 11 on Clerk's dark card, a deep red under white text in light.
  return theme === "dark"
    ? { baseTheme: dark, variables: { ...variables, colorPrimary: "#7b93ff", colorDanger: "#ff9592" } }
    : { variables: { ...variables, colorDanger: "#c62a2f" } };
}
