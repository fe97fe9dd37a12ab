import NProgress from "nprogress";
import { useEffect } from "react";
import { useIsBusy } from "~/hooks/use-is-busy";
import { PROGRESS_BAR_SETTINGS } from "~/lib/progress-settings";

// role="progressbar" names the bar for assistive tech; no live region, so the
// trickle is not announced over and over.
const TEMPLATE =
  '<div class="bar" role="progressbar" aria-label="Loading page" aria-valuemin="0" aria-valuemax="100" aria-valuetext="Loading"></div>';

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
