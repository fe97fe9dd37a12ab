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
  return theme === "dark" ? { baseTheme: dark, variables: { ...variables, colorPrimary: "#7b93ff" } } : { variables };
}
