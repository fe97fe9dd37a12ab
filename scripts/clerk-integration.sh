#!/usr/bin/env bash
# Clerk's own end-to-end specs (clerk/javascript's integration/ suite) against `npm run emulator`,
# as an outside check of the emulator (issue 49). Nothing of Clerk's is copied into this project:
# the suite is extracted from a snapshot of clerk/javascript into a work directory, and Clerk's
# react-router-node template is installed there from the npm registry as the app, behind the one
# proxy rule packages/clerk-emulator/GUIDE.md prescribes. The specs run through the suite's standalone-app entry
# (E2E_APP_URL, E2E_APP_PK, E2E_APP_SK, E2E_CLERK_API_URL) in Debian's Chromium, one worker.
#
#   scripts/clerk-integration.sh <clerk/javascript git dir (bare or not)> [work dir]
#
# Environment: CLERK_INTEGRATION_SPECS (spec paths under integration/tests, space-separated),
# CLERK_INTEGRATION_REF (default main), CLERK_EMULATOR_FRONTEND_LATENCY_MS (default 300: Clerk's page
# objects wait for a prepare/attempt answer only after the click), CLERK_EMULATOR_LATENCY_MS (Backend
# API, default 0), CLERK_INTEGRATION_REUSE=1 (keep a previous run's installs), CHROMIUM_PATH
# (default /usr/bin/chromium). Needs Node 20.19+, git, and the npm registry; nothing else leaves
# loopback. Prints a tally spec by spec and writes <work dir>/results.json (Playwright's JSON report).
# Every process it starts is stopped on exit, whatever happens.
set -euo pipefail

SNAPSHOT=${1:?usage: scripts/clerk-integration.sh <clerk/javascript git dir> [work dir]}
WORK=${2:-$(mktemp -d "${TMPDIR:-/tmp}/clerk-integration.XXXXXX")}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
REF=${CLERK_INTEGRATION_REF:-main}
LATENCY_MS=${CLERK_EMULATOR_LATENCY_MS:-0}
FRONTEND_LATENCY_MS=${CLERK_EMULATOR_FRONTEND_LATENCY_MS:-300}
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
SPECS=${CLERK_INTEGRATION_SPECS:-"react-router/basic.test.ts sign-in-flow.test.ts sign-up-flow.test.ts sign-out-smoke.test.ts email-code.test.ts user-profile.test.ts sessions"}

# The versions installed: what exists on the registry today for Core 3 (the template names
# react-router 8.3.0 and vite 8, which exist; Clerk's own runs install @clerk/* from the monorepo).
CLERK_REACT_ROUTER=3.6.24
CLERK_JS=6.40.0
CLERK_UI=1.34.0
CLERK_BACKEND=3.25.0
CLERK_SHARED=4.41.0
CLERK_TESTING=2.2.36
PLAYWRIGHT=1.65.1

pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  sleep 1
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
}
trap stop_all EXIT INT TERM

log() { printf '\n== %s\n' "$*"; }
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_for() { # url, what, seconds
  for _ in $(seq 1 "$3"); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 1; done
  echo "$2 did not answer at $1 within $3 s" >&2
  return 1
}

log "Clerk's integration suite from $SNAPSHOT ($REF) into $WORK"
mkdir -p "$WORK"
# CLERK_INTEGRATION_REUSE=1 keeps a previous run's installs in the same work dir.
reuse=${CLERK_INTEGRATION_REUSE:-0}
[ "$reuse" = 1 ] && [ -d "$WORK/app/node_modules/@clerk/react-router" ] || reuse=0
rm -rf "$WORK/integration"
[ "$reuse" = 1 ] || rm -rf "$WORK/app"
git -C "$SNAPSHOT" archive "$REF" integration | tar -x -C "$WORK"
git -C "$SNAPSHOT" log -1 --format='   commit %H (%cd)' "$REF"

log "The suite's own dependencies, from the registry"
# What integration/ imports outside itself, at the versions clerk/javascript's root package.json names.
cat >"$WORK/package.json" <<EOF
{
  "name": "clerk-integration-against-emulator",
  "private": true,
  "devDependencies": {
    "@clerk/backend": "$CLERK_BACKEND",
    "@clerk/shared": "$CLERK_SHARED",
    "@clerk/testing": "$CLERK_TESTING",
    "@faker-js/faker": "^9.9.0",
    "@playwright/test": "$PLAYWRIGHT",
    "chalk": "4.1.2",
    "dotenv": "^16.5.0",
    "execa": "^5.1.1",
    "fs-extra": "^11.3.0",
    "get-port": "^5.1.1",
    "http-proxy": "^1.18.1",
    "tree-kill": "^1.2.2",
    "uuid": "8.3.2"
  }
}
EOF
[ "$reuse" = 1 ] || (cd "$WORK" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)

log "The app: Clerk's react-router-node template, with @clerk/react-router $CLERK_REACT_ROUTER"
[ "$reuse" = 1 ] || cp -r "$WORK/integration/templates/react-router-node" "$WORK/app"
# The one rule packages/clerk-emulator/GUIDE.md gives for Vite: /__clerk/* to the emulator, the prefix removed.
cat >"$WORK/app/vite.config.ts" <<'EOF'
import { reactRouter } from '@react-router/dev/vite';
import { defineConfig } from 'vite';
import tsconfigPaths from 'vite-tsconfig-paths';

export default defineConfig(() => ({
  plugins: [reactRouter(), tsconfigPaths({ projects: ['./tsconfig.json'] })],
  server: {
    host: '127.0.0.1',
    port: Number(process.env.PORT),
    strictPort: true,
    proxy: {
      '/__clerk': {
        target: process.env.CLERK_EMULATOR_URL,
        rewrite: (path: string) => path.replace(/^\/__clerk/, ''),
        xfwd: true,
      },
    },
  },
}));
EOF
# What the apps Clerk runs its generic specs on (its next-app-router and react-vite templates) have
# and this template lacks: the client's and session's ids on the home page (sign-out-smoke reads
# them), /buttons with the modal sign-in and sign-up buttons (sign-up-flow), and the account pages
# the user-profile spec opens: /user, path routing, and /hash/user, hash routing with a <UserButton/>.
cat >"$WORK/app/app/routes.ts" <<'EOF2'
import { type RouteConfig, index, route } from '@react-router/dev/routes';

export default [
  index('routes/home.tsx'),
  route('sign-in/*', 'routes/sign-in.tsx'),
  route('sign-up/*', 'routes/sign-up.tsx'),
  route('protected', 'routes/protected.tsx'),
  route('user/*', 'routes/user.tsx'),
  route('buttons', 'routes/buttons.tsx'),
  route('hash/user', 'routes/hash-user.tsx'),
] satisfies RouteConfig;
EOF2
cat >"$WORK/app/app/routes/home.tsx" <<'EOF2'
import { Show, UserButton, useClerk, useSession } from '@clerk/react-router';

function ClientId() {
  const clerk = useClerk();
  useSession(); // re-render when the session changes
  return (
    <>
      {clerk?.client?.id && <p data-clerk-id>{clerk.client.id}</p>}
      {clerk?.client?.lastActiveSessionId && <p data-clerk-session>{clerk.client.lastActiveSessionId}</p>}
    </>
  );
}

export default function Home() {
  return (
    <div>
      <UserButton />
      <Show when='signed-in'>SignedIn</Show>
      <Show when='signed-out'>SignedOut</Show>
      <ClientId />
    </div>
  );
}
EOF2
cat >"$WORK/app/app/routes/buttons.tsx" <<'EOF2'
import { SignInButton, SignUpButton } from '@clerk/react-router';

export default function Buttons() {
  return (
    <main>
      <SignInButton mode='modal' forceRedirectUrl='/protected' signUpForceRedirectUrl='/protected'>
        Sign in button (force)
      </SignInButton>
      <SignInButton mode='modal' fallbackRedirectUrl='/protected'>
        Sign in button (fallback)
      </SignInButton>
      <SignUpButton mode='modal' forceRedirectUrl='/protected' signInForceRedirectUrl='/protected'>
        Sign up button (force)
      </SignUpButton>
      <SignUpButton mode='modal' fallbackRedirectUrl='/protected'>
        Sign up button (fallback)
      </SignUpButton>
    </main>
  );
}
EOF2
cat >"$WORK/app/app/routes/user.tsx" <<'EOF2'
import { UserProfile } from '@clerk/react-router';

export default function UserPage() {
  return <UserProfile path='/user' routing='path' fallback={<>Loading user profile</>} />;
}
EOF2
cat >"$WORK/app/app/routes/hash-user.tsx" <<'EOF2'
import { UserButton, UserProfile } from '@clerk/react-router';

export default function HashUserPage() {
  return (
    <div>
      <UserButton />
      <UserProfile routing='hash' />
    </div>
  );
}
EOF2
[ "$reuse" = 1 ] || (cd "$WORK/app" && npm install --no-audit --no-fund --loglevel=error &&
  npm install --no-audit --no-fund --loglevel=error \
    "@clerk/react-router@$CLERK_REACT_ROUTER" "@clerk/clerk-js@$CLERK_JS" "@clerk/ui@$CLERK_UI")

EMULATOR_PORT=$(free_port)
APP_PORT=$(free_port)
APP_URL="http://127.0.0.1:$APP_PORT"

log "npm run emulator on $EMULATOR_PORT (latency: Frontend API $FRONTEND_LATENCY_MS ms, Backend API $LATENCY_MS ms), the app on $APP_URL"
EMULATOR_LOG="$WORK/emulator.log"
(cd "$ROOT" && exec setsid node packages/clerk-emulator/bin/clerk-emulator.mjs --port "$EMULATOR_PORT" --data-dir memory \
  --proxy-url "$APP_URL/__clerk" --npm-dir "$WORK/app/node_modules" --latency-ms "$LATENCY_MS" \
  --frontend-latency-ms "$FRONTEND_LATENCY_MS" \
  --control) >"$EMULATOR_LOG" 2>&1 &
pids+=($!)
for _ in $(seq 1 30); do grep -q '^CLERK_PROXY_URL=' "$EMULATOR_LOG" && break; sleep 1; done
grep -q '^CLERK_PROXY_URL=' "$EMULATOR_LOG" || { cat "$EMULATOR_LOG"; exit 1; }
printed() { sed -n "s/^$1=//p" "$EMULATOR_LOG"; }
PK=$(printed CLERK_PUBLISHABLE_KEY)
SK=$(printed CLERK_SECRET_KEY)
API_URL=$(printed CLERK_API_URL)
# clerk-js and @clerk/ui through the proxy, from the app's own node_modules (--npm-dir).
CLERK_JS_URL="$APP_URL/__clerk/npm/@clerk/clerk-js@${CLERK_JS%%.*}/dist/clerk.browser.js"
CLERK_UI_URL="$APP_URL/__clerk/npm/@clerk/ui@$CLERK_UI/dist/ui.browser.js"

APP_LOG="$WORK/app.log"
(cd "$WORK/app" && exec setsid env PORT="$APP_PORT" CLERK_EMULATOR_URL="http://127.0.0.1:$EMULATOR_PORT" \
  CLERK_PUBLISHABLE_KEY="$PK" CLERK_SECRET_KEY="$SK" CLERK_API_URL="$API_URL" \
  CLERK_JWT_KEY="$(printed CLERK_JWT_KEY)" CLERK_PROXY_URL="$APP_URL/__clerk" \
  VITE_CLERK_JS_URL="$CLERK_JS_URL" VITE_CLERK_UI_URL="$CLERK_UI_URL" \
  node_modules/.bin/react-router dev --port "$APP_PORT") >"$APP_LOG" 2>&1 &
pids+=($!)
wait_for "$APP_URL/" "the app" 90 || { cat "$APP_LOG"; exit 1; }
# The first page load makes Vite optimize its dependencies; do it before the first spec's clock starts.
curl -fsS -o /dev/null "$APP_URL/sign-in" || true

log "Playwright: ${SPECS}"
# The suite's own settings (integration/playwright.config.ts's `common`), with Debian's Chromium,
# one worker, no retries, and a JSON report beside the list.
cat >"$WORK/integration/playwright.emulator.config.ts" <<EOF
import { defineConfig, devices } from '@playwright/test';
import { common } from './playwright.config';

export default defineConfig({
  ...common,
  workers: 1,
  retries: 0,
  maxFailures: undefined,
  reporter: [['list'], ['json', { outputFile: '$WORK/results.json' }]],
  projects: [
    { name: 'setup', testMatch: /global\.setup/, teardown: 'teardown' },
    { name: 'teardown', testMatch: /global\.teardown/ },
    {
      name: 'chromium',
      use: {
        ...devices['Desktop Chrome'],
        launchOptions: { executablePath: '$CHROMIUM', args: $(cat "$ROOT/tests/support/chromium-args.json") },
      },
      dependencies: ['setup'],
    },
  ],
});
EOF
# The suite's presets name Clerk's test instances by key ("with-email-codes", …) and read every key at
# load time; the emulator is one instance, so each name gets its keys (INTEGRATION_INSTANCE_KEYS).
INSTANCE_KEYS=$(PK="$PK" SK="$SK" node -e '
  const { readFileSync, readdirSync } = require("fs");
  const files = readdirSync(process.argv[1], { recursive: true }).filter((f) => f.endsWith(".ts"));
  const names = new Set();
  for (const f of files)
    for (const m of readFileSync(`${process.argv[1]}/${f}`, "utf8").matchAll(/(?:withInstanceKeys\(\s*|instanceKeys\.get\(\s*)[\x27"]([^\x27"]+)[\x27"]/g))
      names.add(m[1]);
  console.log(JSON.stringify(Object.fromEntries([...names].map((n) => [n, { pk: process.env.PK, sk: process.env.SK }]))));
' "$WORK/integration")
# What Clerk's harness does for each app it starts itself (integration/models/application.ts), and
# skips for a standalone app and for a production key like the emulator's: Clerk's clerkSetup, which
# fetches a testing token (POST /v1/testing_tokens) and names the Frontend API for the page objects'
# setupClerkTestingToken. The Frontend API is the app's proxy path.
read -r CLERK_FAPI CLERK_TESTING_TOKEN < <(cd "$WORK" && node -e '
  require("@clerk/testing/playwright")
    .clerkSetup({ publishableKey: process.argv[1], secretKey: process.argv[2], apiUrl: process.argv[3],
      frontendApiUrl: process.argv[4], dotenv: false })
    .then(() => console.log(process.env.CLERK_FAPI, process.env.CLERK_TESTING_TOKEN));
' "$PK" "$SK" "$API_URL" "${APP_URL#http://}/__clerk")
export CLERK_FAPI CLERK_TESTING_TOKEN

# The two specs that build apps of their own (email-code: Next.js and React-Vite apps; user-profile:
# a Next.js app) install them with pkglab from Clerk's monorepo, which a standalone run does not have.
# Clerk's harness has a switch for an app started by hand (dev({ manualStart })); with E2E_APP_URL set,
# this makes every app the standalone one: setup installs nothing, dev starts nothing and serves
# E2E_APP_URL, and the app's env keeps the Backend API's URL (E2E_CLERK_API_URL).
node - "$WORK/integration/models/application.ts" <<'EOF2'
const fs = require("fs");
const file = process.argv[2];
let source = fs.readFileSync(file, "utf8");
const edit = (from, to) => {
  if (!source.includes(from)) throw new Error(`integration/models/application.ts changed: no "${from}"`);
  source = source.replace(from, to);
};
edit("state.env = env;", "if (process.env.E2E_CLERK_API_URL) env.setEnvVariable('private', 'CLERK_API_URL', process.env.E2E_CLERK_API_URL);\n      state.env = env;");
edit("const { force } = opts || {};", "if (process.env.E2E_APP_URL) return;\n      const { force } = opts || {};");
edit("const runtimeServerUrl = resolveServerUrl(opts.serverUrl, serverUrl, port);", "const runtimeServerUrl = process.env.E2E_APP_URL ?? resolveServerUrl(opts.serverUrl, serverUrl, port);");
edit("if (opts.manualStart) {", "if (opts.manualStart || process.env.E2E_APP_URL) {");
fs.writeFileSync(file, source);
EOF2

spec_paths=()
for spec in $SPECS; do spec_paths+=("integration/tests/$spec"); done
set +e
(cd "$WORK" && E2E_APP_URL="$APP_URL" E2E_APP_PK="$PK" E2E_APP_SK="$SK" E2E_CLERK_API_URL="$API_URL" \
  E2E_APP_CLERK_JS="$CLERK_JS_URL" E2E_APP_CLERK_UI="$CLERK_UI_URL" E2E_CLEANUP=0 \
  INTEGRATION_INSTANCE_KEYS="$INSTANCE_KEYS" \
  npx playwright test --config integration/playwright.emulator.config.ts "${spec_paths[@]}")
status=$?
set -e

log "Tally (spec: passed / failed / skipped)"
node - "$WORK/results.json" <<'EOF'
const report = JSON.parse(require("fs").readFileSync(process.argv[2], "utf8"));
const tally = new Map();
const walk = (suite, file) => {
  for (const s of suite.suites ?? []) walk(s, file);
  for (const spec of suite.specs ?? []) {
    for (const t of spec.tests) {
      if (t.projectName !== "chromium") continue;
      const row = tally.get(file) ?? { passed: 0, failed: 0, skipped: 0, failures: [] };
      const status = t.results.at(-1)?.status ?? "skipped";
      if (status === "passed") row.passed++;
      else if (status === "skipped") row.skipped++;
      else {
        row.failed++;
        const error = (t.results.at(-1)?.error?.message ?? status).replace(/\u001b\[[0-9;]*m/g, "");
        row.failures.push(`${spec.title}: ${error.split("\n").find((l) => l.trim()) ?? ""}`.slice(0, 300));
      }
      tally.set(file, row);
    }
  }
};
for (const suite of report.suites ?? []) walk(suite, suite.file);
for (const [file, row] of tally) {
  console.log(`${file}: ${row.passed} passed / ${row.failed} failed / ${row.skipped} skipped`);
  for (const f of row.failures) console.log(`    x ${f}`);
}
for (const e of report.errors ?? []) console.log(`error: ${(e.message ?? "").replace(/\u001b\[[0-9;]*m/g, "").split("\n")[0]}`);
EOF
exit $status
