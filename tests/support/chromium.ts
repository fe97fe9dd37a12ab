import args from "./chromium-args.json";

/** Debian's Chromium, started so that it makes no connections of its own (the flags are shared with `npm run audit`). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS: string[] = args;
