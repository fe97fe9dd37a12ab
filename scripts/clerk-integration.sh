#!/usr/bin/env bash
# Clerk's own end-to-end specs (clerk/javascript's integration/ suite) against the emulator, as an
# outside check of it (issues 49 and 68). Nothing of Clerk's is copied into this project: the suite is
# extracted from a snapshot of clerk/javascript into a work directory, and the two apps Clerk's presets
# run these specs on are installed there from the npm registry: its generic `react-vite` template
# (@clerk/react) and its `react-router-node` template (@clerk/react-router), each with the files under
# scripts/clerk-integration/<template>/ laid over it and the one Vite proxy rule
# packages/clerk-emulator/GUIDE.md prescribes (scripts/clerk-integration/clerk-proxy.ts).
#
#   scripts/clerk-integration.sh <clerk/javascript git dir (bare or not)> [--work <dir>] [--family <tag>]… [spec path]…
#
# Spec paths are under integration/tests (a file or a folder); `--family react-router` (or generic,
# nextjs, …) takes every spec with @<tag> in a describe title, as Clerk's CI greps; with neither,
# CLERK_INTEGRATION_SPECS or the default list below. Tests that open a page beyond loopback
# (https://clerk.com) are left out and tallied as needing the internet. scripts/clerk-integration/plan.mjs reads each spec's presets
# (testAgainstRunningApps's withEnv and withPattern, integration/presets/longRunningApps.ts) and groups
# the specs by app and env; scripts/clerk-integration/envs.mjs says what each of Clerk's envs is here.
# Each group gets its own emulator (scripts/clerk-integration/emulator.mjs: the env's switches as
# `--instance <file.json>`, `--development` for a pk_test instance) and its own app, and runs through
# the suite's standalone-app entry (E2E_APP_URL, E2E_APP_PK, E2E_APP_SK, E2E_CLERK_API_URL) in Debian's
# Chromium, one worker. A group whose env needs what the emulator cannot do yet is not run and is
# tallied as "needs <setting>"; CLERK_INTEGRATION_APPROXIMATE=1 runs it anyway without those settings,
# and the tally says what it ran without.
#
# Environment: CLERK_INTEGRATION_REF (default main), CLERK_EMULATOR_FRONTEND_LATENCY_MS (default 300:
# Clerk's page objects wait for a prepare/attempt answer only after the click), CLERK_EMULATOR_LATENCY_MS
# (Backend API, default 0), CLERK_INTEGRATION_REUSE=1 (keep a previous run's installs in the same work
# dir), CHROMIUM_PATH (default /usr/bin/chromium). Needs Node 20.19+, git, and the npm registry; nothing
# else leaves loopback. Prints a tally spec by spec (scripts/clerk-integration/tally.cjs) and keeps each
# group's Playwright JSON report in <work dir>/groups/<n>/results.json; exits non-zero when a test
# failed. docs/clerk-specs.md has the last run's tally and why each failure fails. Every process it starts is
# stopped on exit, whatever happens. tests/integration/clerk-integration-harness.test.ts (npm test)
# checks that every file and command named here exists and that the emulator starts with these flags.
set -euo pipefail

ROOT=$(cd "$(dirname "$0")/.." && pwd)
HERE="$ROOT/scripts/clerk-integration"
SNAPSHOT=${1:?usage: scripts/clerk-integration.sh <clerk/javascript git dir> [--work <dir>] [--family <tag>]… [spec path]…}
shift
WORK=""
SELECTION=()
while [ $# -gt 0 ]; do
  case "$1" in
    --work) WORK=$2; shift 2 ;;
    --family) SELECTION+=(--family "$2"); shift 2 ;;
    *) SELECTION+=("$1"); shift ;;
  esac
done
WORK=${WORK:-$(mktemp -d "${TMPDIR:-/tmp}/clerk-integration.XXXXXX")}
REF=${CLERK_INTEGRATION_REF:-main}
LATENCY_MS=${CLERK_EMULATOR_LATENCY_MS:-0}
FRONTEND_LATENCY_MS=${CLERK_EMULATOR_FRONTEND_LATENCY_MS:-300}
CHROMIUM=${CHROMIUM_PATH:-/usr/bin/chromium}
if [ ${#SELECTION[@]} -eq 0 ]; then
  read -r -a SELECTION <<<"${CLERK_INTEGRATION_SPECS:-react-router/basic.test.ts sign-in-flow.test.ts sign-up-flow.test.ts sign-out-smoke.test.ts email-code.test.ts user-profile.test.ts sessions}"
fi

# The versions installed: what exists on the registry today for Core 3 (the templates name
# react-router 7 and vite 7/8, which exist; Clerk's own runs install @clerk/* from the monorepo).
CLERK_REACT_ROUTER=3.6.24
CLERK_REACT=6.18.0
CLERK_JS=6.40.0
CLERK_UI=1.34.0
CLERK_BACKEND=3.25.0
CLERK_SHARED=4.41.0
CLERK_TESTING=2.2.36
PLAYWRIGHT=1.65.1

pids=()
stop_all() {
  for pid in "${pids[@]}"; do kill -TERM -- "-$pid" 2>/dev/null || true; done
  [ ${#pids[@]} -eq 0 ] || sleep 1
  for pid in "${pids[@]}"; do kill -KILL -- "-$pid" 2>/dev/null || true; done
  pids=()
}
trap stop_all EXIT INT TERM

log() { printf '\n== %s\n' "$*"; }
free_port() { node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'; }
wait_for() { # url, what, seconds
  for _ in $(seq 1 "$3"); do curl -fsS -o /dev/null "$1" 2>/dev/null && return 0; sleep 1; done
  echo "$2 did not answer at $1 within $3 s" >&2
  return 1
}
json() { node -e 'const v=JSON.parse(require("fs").readFileSync(process.argv[1],"utf8"));const r=new Function("v","return "+process.argv[2])(v);console.log(Array.isArray(r)?r.join("\n"):r)' "$@"; }

log "Clerk's integration suite from $SNAPSHOT ($REF) into $WORK"
mkdir -p "$WORK"
reuse=${CLERK_INTEGRATION_REUSE:-0}
[ "$reuse" = 1 ] && [ -d "$WORK/node_modules/@playwright/test" ] || reuse=0
rm -rf "$WORK/integration" "$WORK/groups"
git -C "$SNAPSHOT" archive "$REF" integration | tar -x -C "$WORK"
git -C "$SNAPSHOT" log -1 --format='   commit %H (%cd)' "$REF" | tee "$WORK/commit.txt"

log "The suite's own dependencies, from the registry"
# What integration/ imports outside itself, at the versions clerk/javascript's root package.json names.
cat >"$WORK/package.json" <<JSON
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
    "jsonwebtoken": "9.0.2",
    "tree-kill": "^1.2.2",
    "uuid": "8.3.2"
  }
}
JSON
# A reused work dir installs again only when this list changed since its install.
if [ "$reuse" != 1 ] || ! cmp -s "$WORK/package.json" "$WORK/.installed-package.json"; then
  (cd "$WORK" && PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 npm install --no-audit --no-fund --loglevel=error)
  cp "$WORK/package.json" "$WORK/.installed-package.json"
fi
cp "$HERE/playwright.emulator.config.ts" "$WORK/integration/"
node "$HERE/edit.cjs" application "$WORK/integration/models/application.ts"

log "Which app and env Clerk's presets give each spec: ${SELECTION[*]}"
(cd "$WORK" && node "$HERE/plan.mjs" "$WORK/integration" "${SELECTION[@]}") >"$WORK/plan.json"
json "$WORK/plan.json" 'v.groups.map((g) => `   ${g.app} on ${g.env}: ${g.files.join(" ")}`)'
json "$WORK/plan.json" 'v.notRun.map((n) => `   not run: ${n.file} "${n.title}": needs ${n.needs.join("; ")}`)'

# The React Router template's root gets waitlistUrl (edit.cjs), once: a reused install may have it already.
edit_root() { # template, app dir
  if [ "$1" = react-router-node ] && ! grep -q "waitlistUrl=" "$2/app/root.tsx"; then
    node "$HERE/edit.cjs" react-router-root "$2/app/root.tsx"
  fi
  if [ "$1" = react-router-node ] && ! grep -q "taskUrls=" "$2/app/root.tsx"; then
    node "$HERE/edit.cjs" react-router-root-task-urls "$2/app/root.tsx"
  fi
}

# Clerk's template as the app, the harness's files over it, and the Clerk packages at the versions above.
install_app() { # template
  local app="$WORK/apps/$1"
  if [ "$reuse" = 1 ] && [ -d "$app/node_modules/@clerk/shared" ]; then
    cp -r "$HERE/$1/." "$app/" && cp "$HERE/clerk-proxy.ts" "$app/"
    edit_root "$1" "$app"
    return 0
  fi
  log "The app: Clerk's $1 template"
  rm -rf "$app" && mkdir -p "$WORK/apps"
  cp -r "$WORK/integration/templates/$1" "$app"
  cp -r "$HERE/$1/." "$app/"
  cp "$HERE/clerk-proxy.ts" "$app/"
  local clerk=("@clerk/clerk-js@$CLERK_JS" "@clerk/ui@$CLERK_UI" "@clerk/shared@$CLERK_SHARED")
  case "$1" in
    react-router-node) clerk+=("@clerk/react-router@$CLERK_REACT_ROUTER") ;;
    react-vite) clerk+=("@clerk/react@$CLERK_REACT"); node "$HERE/edit.cjs" react-vite-main "$app/src/main.tsx" ;;
  esac
  edit_root "$1" "$app"
  (cd "$app" && npm install --no-audit --no-fund --loglevel=error && npm install --no-audit --no-fund --loglevel=error "${clerk[@]}")
}
for app in $(json "$WORK/plan.json" '[...new Set(v.groups.map((g) => g.app))]'); do install_app "$app"; done

# One group: its emulator (with the env's settings), its app (with the env's app variables), its specs.
run_group() { # index
  local dir="$WORK/groups/$1" group="$WORK/groups/$1/group.json"
  mkdir -p "$dir"
  json "$WORK/plan.json" "JSON.stringify(v.groups[$1])" >"$group"
  local app template env
  template=$(json "$group" 'v.app')
  env=$(json "$group" 'v.env')
  app="$WORK/apps/$template"
  local emulator_port app_port app_url
  emulator_port=$(free_port)
  app_port=$(free_port)
  app_url="http://127.0.0.1:$app_port"
  (cd "$ROOT" && node "$HERE/emulator.mjs" "$group" "$dir" "$emulator_port" "$app_url" "$app/node_modules" \
    "$LATENCY_MS" "$FRONTEND_LATENCY_MS") >"$dir/command.json"
  write_status() { # ran
    node -e 'const fs=require("fs");const [g,c,ran,out]=process.argv.slice(1);const group=JSON.parse(fs.readFileSync(g,"utf8"));const cmd=JSON.parse(fs.readFileSync(c,"utf8"));fs.writeFileSync(out,JSON.stringify({app:group.app,env:group.env,files:group.files,standsInFor:group.standsInFor,missing:cmd.missing,ran:ran==="1"}))' \
      "$group" "$dir/command.json" "$1" "$dir/status.json"
  }
  local missing
  missing=$(json "$dir/command.json" 'v.missing.join("; ")')
  if [ -n "$missing" ] && [ "${CLERK_INTEGRATION_APPROXIMATE:-0}" != 1 ]; then
    log "$template on $env: not run, the emulator lacks $missing"
    write_status 0
    return 0
  fi
  log "$template on $env: the emulator on $emulator_port${missing:+ (without $missing)}, the app on $app_url"
  mapfile -t args < <(json "$dir/command.json" 'v.args')
  printf '   node %s\n' "${args[*]}"
  (cd "$ROOT" && exec setsid node "${args[@]}") >"$dir/emulator.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 30); do grep -q '^CLERK_PROXY_URL=' "$dir/emulator.log" && break; sleep 1; done
  grep -q '^CLERK_PROXY_URL=' "$dir/emulator.log" || { cat "$dir/emulator.log"; return 1; }
  printed() { sed -n "s/^$1=//p" "$dir/emulator.log"; }
  local pk sk api_url clerk_js_url clerk_ui_url
  pk=$(printed CLERK_PUBLISHABLE_KEY)
  sk=$(printed CLERK_SECRET_KEY)
  api_url=$(printed CLERK_API_URL)
  # The env's custom organization roles, as its dashboard lists them (envs.mjs: roles).
  node -e '
    const [group, apiUrl, secretKey] = process.argv.slice(1);
    const roles = JSON.parse(require("fs").readFileSync(group, "utf8")).roles ?? [];
    (async () => {
      for (const role of roles) {
        const res = await fetch(`${apiUrl}/v1/organization_roles`, {
          method: "POST",
          headers: { Authorization: `Bearer ${secretKey}`, "Content-Type": "application/json" },
          body: JSON.stringify(role),
        });
        if (!res.ok) throw new Error(`role ${role.key}: ${res.status} ${await res.text()}`);
      }
    })().catch((error) => { console.error(error.message); process.exit(1); });
  ' "$group" "$api_url" "$sk" || return 1
  # clerk-js and @clerk/ui through the proxy, from the app's own node_modules (--npm-dir).
  clerk_js_url="$app_url/__clerk/npm/@clerk/clerk-js@${CLERK_JS%%.*}/dist/clerk.browser.js"
  clerk_ui_url="$app_url/__clerk/npm/@clerk/ui@$CLERK_UI/dist/ui.browser.js"

  # The preset's public variables get the templates' VITE_ prefix (integration/presets: setEnvFormatter).
  local app_env=()
  mapfile -t app_env < <(json "$group" 'Object.entries(v.appEnv).map(([k, x]) => `VITE_${k}=${x}`)')
  local dev=(node_modules/.bin/vite --port "$app_port" --no-open)
  [ "$template" = react-router-node ] && dev=(node_modules/.bin/react-router dev --port "$app_port")
  (cd "$app" && exec setsid env PORT="$app_port" CLERK_EMULATOR_URL="http://127.0.0.1:$emulator_port" \
    CLERK_SECRET_KEY="$sk" CLERK_API_URL="$api_url" CLERK_JWT_KEY="$(printed CLERK_JWT_KEY)" \
    VITE_CLERK_PUBLISHABLE_KEY="$pk" VITE_CLERK_PROXY_URL="$app_url/__clerk" \
    VITE_CLERK_JS_URL="$clerk_js_url" VITE_CLERK_UI_URL="$clerk_ui_url" \
    VITE_CLERK_TELEMETRY_DISABLED=true VITE_CLERK_KEYLESS_DISABLED=true "${app_env[@]}" \
    "${dev[@]}") >"$dir/app.log" 2>&1 &
  pids+=($!)
  wait_for "$app_url/" "the app" 90 || { cat "$dir/app.log"; return 1; }
  # The first page load makes Vite optimize its dependencies; do it before the first spec's clock starts.
  curl -fsS -o /dev/null "$app_url/sign-in" || true

  # What Clerk's harness does for each app it starts itself (integration/models/application.ts), and
  # skips for a standalone app (and for any production key): Clerk's clerkSetup, which
  # fetches a testing token (POST /v1/testing_tokens) and names the Frontend API for the page objects'
  # setupClerkTestingToken. The Frontend API is the app's proxy path.
  local clerk_fapi clerk_testing_token
  read -r clerk_fapi clerk_testing_token < <(cd "$WORK" && node -e '
    require("@clerk/testing/playwright")
      .clerkSetup({ publishableKey: process.argv[1], secretKey: process.argv[2], apiUrl: process.argv[3],
        frontendApiUrl: process.argv[4], dotenv: false })
      .then(() => console.log(process.env.CLERK_FAPI, process.env.CLERK_TESTING_TOKEN));
  ' "$pk" "$sk" "$api_url" "${app_url#http://}/__clerk")

  # A file split between groups runs only its describes of this group (--grep); tests that open a page
  # beyond loopback are left out (--grep-invert) and tallied as needing the internet.
  local specs=() grep grep_invert
  mapfile -t specs < <(json "$group" 'v.files.map((f) => `integration/tests/${f}`)')
  grep=$(json "$group" 'v.grep ?? ""')
  grep_invert=$(json "$group" 'v.grepInvert ?? ""')
  log "Playwright: ${specs[*]}${grep:+ (--grep $grep)}${grep_invert:+ (--grep-invert $grep_invert)}"
  write_status 1
  (cd "$WORK" && E2E_APP_URL="$app_url" E2E_APP_PK="$pk" E2E_APP_SK="$sk" E2E_CLERK_API_URL="$api_url" \
    E2E_APP_CLERK_JS="$clerk_js_url" E2E_APP_CLERK_UI="$clerk_ui_url" E2E_CLEANUP=0 \
    INTEGRATION_INSTANCE_KEYS="$(PK="$pk" SK="$sk" node "$HERE/instance-keys.cjs" "$WORK/integration")" \
    CLERK_FAPI="$clerk_fapi" CLERK_TESTING_TOKEN="$clerk_testing_token" \
    CLERK_INTEGRATION_REPORT="$dir/results.json" CHROMIUM_PATH="$CHROMIUM" \
    CLERK_INTEGRATION_CHROMIUM_ARGS="$ROOT/tests/support/chromium-args.json" \
    npx playwright test --config integration/playwright.emulator.config.ts ${grep:+--grep "$grep"} \
    ${grep_invert:+--grep-invert "$grep_invert"} "${specs[@]}") || true
  stop_all
}

groups=$(json "$WORK/plan.json" 'v.groups.length')
for i in $(seq 0 $((groups - 1))); do run_group "$i"; done

log "Tally (spec: passed / failed / skipped)"
node "$HERE/tally.cjs" "$WORK" | tee "$WORK/tally.txt"
! grep -q '^all: .* [1-9][0-9]* failed' "$WORK/tally.txt"
