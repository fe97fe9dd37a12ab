import NProgress from "nprogress";
import { PROGRESS_BAR_SETTINGS } from "~/lib/progress-settings";

// role="progressbar" names the bar for assistive tech; no live region, so the
// trickle is not announced over and over.
const TEMPLATE =
  '<div class="bar" role="progressbar" aria-label="Loading page" aria-valuemin="0" aria-valuemax="100" aria-valuetext="Loading"></div>';

/** nprogress, set up for this app: a chunk of its own, loaded by the ProgressBar. */
export const bar = NProgress.configure({
  ...PROGRESS_BAR_SETTINGS,
  template: TEMPLATE,
  barSelector: ".bar",
  parent: "#theme-root",
});
export type Bar = typeof bar;
