// The few edits the harness makes to Clerk's files in its work directory, each a string that must be
// found (a changed file stops the run with what was not found, never half-edited):
//   node scripts/clerk-integration/edit.cjs <edit name> <file>
const { readFileSync, writeFileSync } = require("node:fs");

const EDITS = {
  // The specs that build apps of their own (email-code: Next.js and React-Vite apps; user-profile:
  // a Next.js app) install them with pkglab from Clerk's monorepo, which a standalone run does not have.
  // Clerk's harness has a switch for an app started by hand (dev({ manualStart })); with E2E_APP_URL set,
  // this makes every app the standalone one: setup installs nothing, dev starts nothing and serves
  // E2E_APP_URL, and the app's env keeps the Backend API's URL (E2E_CLERK_API_URL).
  application: [
    [
      "state.env = env;",
      "if (process.env.E2E_CLERK_API_URL) env.setEnvVariable('private', 'CLERK_API_URL', process.env.E2E_CLERK_API_URL);\n      state.env = env;",
    ],
    ["const { force } = opts || {};", "if (process.env.E2E_APP_URL) return;\n      const { force } = opts || {};"],
    [
      "const runtimeServerUrl = resolveServerUrl(opts.serverUrl, serverUrl, port);",
      "const runtimeServerUrl = process.env.E2E_APP_URL ?? resolveServerUrl(opts.serverUrl, serverUrl, port);",
    ],
    ["if (opts.manualStart) {", "if (opts.manualStart || process.env.E2E_APP_URL) {"],
  ],
  // Clerk's react-vite template gives ClerkProvider no proxyUrl (Clerk's test instances need none); the
  // emulator is reached through the app's /__clerk proxy only, as @clerk/react-router's CLERK_PROXY_URL does.
  "react-vite-main": [
    ["<ClerkProvider\n", "<ClerkProvider\n      proxyUrl={import.meta.env.VITE_CLERK_PROXY_URL as string}\n"],
  ],
  // The app waitlist-mode builds gives its ClerkProvider waitlistUrl='/waitlist' (<SignIn/>'s "Join
  // waitlist" link goes there); Clerk's react-router-node template names none.
  "react-router-root": [["<ClerkProvider\n", "<ClerkProvider\n      waitlistUrl='/waitlist'\n"]],
  // An app whose own ClerkProvider has taskUrls (session-tasks-eject-flow's): the group's app variable
  // VITE_CLERK_TASK_URLS (plan.mjs reads them from the spec), none otherwise.
  "react-router-root-task-urls": [
    [
      "<ClerkProvider\n",
      "<ClerkProvider\n      taskUrls={import.meta.env.VITE_CLERK_TASK_URLS ? JSON.parse(import.meta.env.VITE_CLERK_TASK_URLS) : undefined}\n",
    ],
  ],
};

function applyEdits(name, source) {
  for (const [from, to] of EDITS[name]) {
    if (!source.includes(from)) throw new Error(`${name}: the file changed, no ${JSON.stringify(from)}`);
    source = source.replace(from, to);
  }
  return source;
}

module.exports = { EDITS, applyEdits };

if (require.main === module) {
  const [name, file] = process.argv.slice(2);
  writeFileSync(file, applyEdits(name, readFileSync(file, "utf8")));
}
