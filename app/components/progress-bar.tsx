import { useFetchers, useNavigation } from "@remix-run/react";
import NProgress from "nprogress";
import { useEffect } from "react";
import { PROGRESS_BAR_SETTINGS } from "~/lib/progress-settings";

// role="progressbar" names the bar for assistive tech; no live region, so the
// trickle is not announced over and over.
const TEMPLATE =
  '<div class="bar" role="progressbar" aria-label="Loading page" aria-valuemin="0" aria-valuemax="100" aria-valuetext="Loading"></div>';

/** Whether a page change or a fetcher submission is under way. */
export function useIsBusy(): boolean {
  const navigation = useNavigation();
  const fetchers = useFetchers();
  return navigation.state !== "idle" || fetchers.some((f) => f.state !== "idle" && Boolean(f.formMethod));
}

/** The thin bar at the top of the page during page changes (nprogress). */
export function ProgressBar() {
  const busy = useIsBusy();

  useEffect(() => {
    NProgress.configure({ ...PROGRESS_BAR_SETTINGS, template: TEMPLATE, barSelector: ".bar", parent: "#theme-root" });
  }, []);

  useEffect(() => {
    if (busy) NProgress.start();
    else NProgress.done();
  }, [busy]);

  useEffect(() => () => void NProgress.remove(), []);

  return null;
}
