/** The page-change progress bar's fixed numbers (from the specification). */
export const PROGRESS_BAR_SETTINGS = {
  minimum: 0.08,
  speed: 200,
  trickleRate: 0.02,
  trickleSpeed: 800,
  showSpinner: false,
} as const;

/** A client-side page change whose code has not loaded by then becomes a full page load. */
export const PAGE_LOAD_TIMEOUT_MS = 3800;
