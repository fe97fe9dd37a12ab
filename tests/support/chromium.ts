import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Debian's Chromium, started so that it makes no connections of its own (the flags are shared with `npm run audit`). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

/**
 * The features Playwright 1.65 turns off itself (its `chromiumSwitches`). Chromium reads only the
 * last `--disable-features`, so a list of our own must repeat Playwright's.
 */
const PLAYWRIGHT_DISABLED_FEATURES = [
  "AvoidUnnecessaryBeforeUnloadCheckSync",
  "DestroyProfileOnBrowserClose",
  "HttpsUpgrades",
  "HttpsFirstBalancedModeAutoEnable",
  "LensOverlay",
  "MediaRouter",
  "PaintHolding",
  "ThirdPartyStoragePartitioning",
  "AvoidCorsURLLoaderRestartOnRedirect",
  "TcpPortRandomizationWin",
  "OptimizationHints",
  "NetworkTimeServiceQuerying",
  "AimEnabled",
  "PreconnectToSearch",
  "msForceBrowserSignIn",
  "msEdgeUpdateLaunchServicesPreferredVersion",
];

/**
 * Chromium 156 (a whole Chrome, headless) preloads its address bar's WebUI popup in a renderer of
 * its own for every window, and Playwright opens a window per browser context: about a second of
 * CPU per context for a popup nobody opens (a fifth of an e2e run's CPU on two cores).
 */
const UNUSED_BROWSER_UI = ["WebUIOmniboxPopup", "WebUIOmniboxAimPopup", "WebUIOmniboxFullPopup"];

/** The flags for a Chromium that Playwright launches: the shared ones, without the browser's own UI. */
export const CHROMIUM_ARGS: string[] = [
  ...(JSON.parse(readFileSync(join(import.meta.dirname, "chromium-args.json"), "utf8")) as string[]),
  `--disable-features=${[...PLAYWRIGHT_DISABLED_FEATURES, ...UNUSED_BROWSER_UI].join(",")}`,
];
