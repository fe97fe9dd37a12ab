import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Debian's Chromium, started so that it makes no connections of its own (the flags are shared with `npm run audit`). */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
export const CHROMIUM_ARGS: string[] = JSON.parse(
  readFileSync(join(import.meta.dirname, "chromium-args.json"), "utf8"),
) as string[];
