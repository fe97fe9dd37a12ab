// How the harness starts the emulator for one group of specs (one env of Clerk's presets): the command
// line, the instance file it names, and what the emulator in this checkout cannot do of it yet.
//
//   node scripts/clerk-integration/emulator.mjs <group.json> <dir> <port> <app URL> <npm dir> <latency ms> <frontend latency ms>
//
// reads the group (plan.mjs), writes <dir>/instance.json if the env sets any switch, and prints
// {"args": [...], "missing": [...]} (args after `node`, relative to the repository's root).
import { spawnSync } from "node:child_process";
import { readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";

export const REPO_ROOT = resolve(import.meta.dirname, "../..");
export const EMULATOR_BIN = "packages/clerk-emulator/bin/clerk-emulator.mjs";

/** The emulator's options, from its --help: which of the harness's flags it takes. */
export function emulatorOptions() {
  const help = spawnSync(process.execPath, [EMULATOR_BIN, "--help"], { cwd: REPO_ROOT, encoding: "utf8" });
  return new Set([...`${help.stdout}`.matchAll(/^\s+(--[a-z-]+)/gm)].map((m) => m[1]));
}

/** An instance object's switches, one `path=value` each (`auth_config.single_session_mode=false`). */
export function switches(instance, prefix = "") {
  return Object.entries(instance).flatMap(([key, value]) =>
    value && typeof value === "object" ? switches(value, `${prefix}${key}.`) : [`${prefix}${key}=${value}`],
  );
}

/**
 * The emulator's command line for a group, as the harness runs it: in memory, behind the app's
 * /__clerk proxy, clerk-js and @clerk/ui served from the app's node_modules, the control API on; the
 * env's switches as `--instance <file>`, `--development` for a pk_test instance, and its flags.
 */
export function emulatorArgs({
  port,
  appUrl,
  npmDir,
  latencyMs = 0,
  frontendLatencyMs = 0,
  instanceFile = null,
  development = false,
  flags = [],
}) {
  return [
    EMULATOR_BIN,
    "--port",
    String(port),
    "--data-dir",
    "memory",
    "--proxy-url",
    `${appUrl}/__clerk`,
    "--npm-dir",
    npmDir,
    "--latency-ms",
    String(latencyMs),
    "--frontend-latency-ms",
    String(frontendLatencyMs),
    "--control",
    ...flags,
    ...(instanceFile ? ["--instance", instanceFile] : []),
    ...(development ? ["--development"] : []),
  ];
}

/** What of a group's settings the emulator lacks, one line each (empty: it can run the group as Clerk's presets say). */
export function missingSettings(group, options) {
  const missing = [];
  const set = switches(group.instance ?? {});
  if (set.length > 0 && !options.has("--instance")) missing.push(`${set.join(", ")} (--instance)`);
  if (group.development && !options.has("--development"))
    missing.push("a development instance, pk_test (--development)");
  for (const flag of (group.flags ?? []).filter((f) => f.startsWith("--")))
    if (!options.has(flag)) missing.push(`${flag}`);
  return missing;
}

/**
 * The command line for a group on this emulator: with CLERK_INTEGRATION_APPROXIMATE=1 (`approximate`),
 * what the emulator lacks is left out and named in `missing`; else `missing` means the group does not run.
 */
export function groupCommand(group, dir, where, options = emulatorOptions(), approximate = false) {
  const missing = missingSettings(group, options);
  const hasInstance = switches(group.instance ?? {}).length > 0 && (options.has("--instance") || !approximate);
  const instanceFile = hasInstance ? join(dir, "instance.json") : null;
  if (instanceFile) writeFileSync(instanceFile, `${JSON.stringify(group.instance, null, 2)}\n`);
  const flags = [];
  for (let i = 0; i < (group.flags ?? []).length; i += 2)
    if (options.has(group.flags[i]) || !approximate) flags.push(group.flags[i], group.flags[i + 1]);
  const development = group.development && (options.has("--development") || !approximate);
  return { args: emulatorArgs({ ...where, instanceFile, development, flags }), missing };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [groupFile, dir, port, appUrl, npmDir, latencyMs, frontendLatencyMs] = process.argv.slice(2);
  const group = JSON.parse(readFileSync(groupFile, "utf8"));
  const approximate = process.env.CLERK_INTEGRATION_APPROXIMATE === "1";
  const where = { port, appUrl, npmDir, latencyMs, frontendLatencyMs };
  console.log(JSON.stringify(groupCommand(group, dir, where, emulatorOptions(), approximate)));
}
