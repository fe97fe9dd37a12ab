import { useFetchers, useNavigation } from "@remix-run/react";
import { THEME_FETCHER_KEY } from "./use-theme";

/**
 * Whether a page change or a form submission is under way. A theme change is
 * not: it shows at once (optimistically), so there is nothing to wait for.
 */
export function useIsBusy(): boolean {
  const navigation = useNavigation();
  const fetchers = useFetchers();
  return (
    navigation.state !== "idle" ||
    fetchers.some((f) => f.key !== THEME_FETCHER_KEY && f.state !== "idle" && Boolean(f.formMethod))
  );
}
