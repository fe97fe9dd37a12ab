// Which app and which environment Clerk's presets give each spec, read from the extracted suite:
// a spec's `testAgainstRunningApps({ withEnv, withPattern })(title, …)`, or for a spec that builds
// its own app, its `appConfigs.<framework>` and `app.withEnv(appConfigs.envs.<env>)`; a pattern's
// env from integration/presets/longRunningApps.ts. Clerk's CI runs a family by tag
// (`--grep @generic` on react.vite.*, `--grep @react-router` on react-router.*: clerk/javascript's
// package.json), so the tag picks the app where no pattern does.
//
//   node scripts/clerk-integration/plan.mjs <integration dir> (--family <tag> | <spec path>…)
//
// prints the plan as JSON: one group per (app, env), with its spec files and describe titles.
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { envSettings } from "./envs.mjs";

/** The two apps the harness runs: Clerk's generic template, and its React Router one. */
export const APPS = ["react-vite", "react-router-node"];

/** The app a long-running app id (or a framework's name in `appConfigs`) stands for here. */
function appFor(id) {
  if (/^react-router\.node|^reactRouter\.reactRouterNode$/.test(id)) return { app: "react-router-node" };
  if (/^react\.vite/.test(id)) return { app: "react-vite" };
  // Next.js apps (Clerk's @nextjs specs): the server-rendered app here stands in.
  if (/^next(\.|$)|^quickstart\.next\./.test(id)) return { app: "react-router-node", standsInFor: id };
  return null;
}

function globMatches(id, pattern) {
  if (!pattern.includes("*")) return id === pattern;
  const source = pattern.replace(/[.+?^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*");
  return new RegExp(`^${source}$`).test(id);
}

/** integration/presets/longRunningApps.ts: each app's id and env name. */
export function longRunningApps(integrationDir) {
  const text = readFileSync(join(integrationDir, "presets/longRunningApps.ts"), "utf8");
  return [...text.matchAll(/\{\s*id:\s*'([^']+)',\s*config:\s*[\w.]+,\s*env:\s*envs\.(\w+)\s*\}/g)].map((m) => ({
    id: m[1],
    env: m[2],
  }));
}

const TITLE = String.raw`\s*(?<quote>['"\x60])(?<title>(?:(?!\k<quote>).)*)\k<quote>`;

export const NEXT_FILES = "a Next.js app (the spec writes its own @clerk/nextjs middleware into it)";
export const NO_APPS = "an app to run on (Clerk's spec lists none: `const configs = [];`)";
const OAUTH_PROVIDER_USE = /instanceKeys\.get\(\s*['"\x60]oauth-provider['"\x60]/;
/** A test that clicks the provider's button and then signs in or up at the provider (its page, its code). */
const AT_THE_PROVIDER = (body) =>
  /['"\x60]E2E OAuth Provider['"\x60]/.test(body) && /enterTestOtpCode|Sign in to oauth-provider/.test(body);
export const OAUTH_PROVIDER = "Clerk's oauth-provider application (a second Clerk instance as the OAuth provider)";

/**
 * The long-running app written for a spec that names no env and no pattern (`withEnv: []`): such a
 * describe runs on whichever apps Clerk's CI names (E2E_APP_ID), and its file's name is its app's env's
 * (`sign-in-or-up-email-links-flow.test.ts` and `next.appRouter.withSignInOrUpEmailLinksFlow`). None
 * such: the describe runs as any other, on withEmailCodes.
 */
function appNamedFor(file, runningApps) {
  const name = (file ?? "").replace(/^.*\//, "").replace(/\.test\.tsx?$/, "");
  const env = `with${name.replace(/(^|-)([a-z])/g, (_, __, c) => c.toUpperCase())}`;
  return runningApps.find((a) => a.env === env && appFor(a.id));
}

/**
 * The `taskUrls` a spec's own app gives its ClerkProvider (`taskUrls={{ 'choose-organization': '/onboarding/…' }}`,
 * session-tasks-eject-flow's), as an object; null without. The app here takes them as VITE_CLERK_TASK_URLS.
 */
export function taskUrlsOf(source) {
  const literal = /taskUrls=\{\{([^}]*)\}\}/.exec(source)?.[1];
  if (!literal) return null;
  return Object.fromEntries([...literal.matchAll(/['"]([\w-]+)['"]\s*:\s*['"]([^'"]+)['"]/g)].map((m) => [m[1], m[2]]));
}

/** A spec file's describe blocks as its presets place them (`file`: its path, for a describe that names no env). */
export function describesOf(source, runningApps, file) {
  const found = [];
  const calls = new RegExp(String.raw`testAgainstRunningApps\(\s*\{([^}]*)\}\s*\)\(${TITLE}`, "g");
  const matches = [...source.matchAll(calls)];
  for (const [i, m] of matches.entries()) {
    const options = m[1];
    // A describe that sets up, for all its tests, a second Clerk application acting as the OAuth provider
    // (Clerk's `oauth-provider` test instance; only Clerk's servers are that application). A test that
    // uses it in its own body is left out alone (oauthProviderTests).
    const body = source.slice(m.index, matches[i + 1]?.index ?? source.length);
    const outsideTests = body.split(new RegExp(String.raw`\btest\(${TITLE}`)).at(0) ?? "";
    if (providerInSetUp(outsideTests)) {
      found.push({ title: m.groups.title, env: "withEmailCodes", app: null, needs: [OAUTH_PROVIDER] });
      continue;
    }
    const withEnv = [...(/withEnv:\s*\[([^\]]*)\]/.exec(options)?.[1] ?? "").matchAll(/envs\.(\w+)/g)].map((e) => e[1]);
    const withPattern = [...(/withPattern:\s*\[([^\]]*)\]/.exec(options)?.[1] ?? "").matchAll(/'([^']+)'/g)].map(
      (p) => p[1],
    );
    const named = withEnv.length === 0 && withPattern.length === 0 ? appNamedFor(file, runningApps) : null;
    if (named) found.push(placed(m.groups.title, [named.env], [named.id], runningApps));
    else found.push(placed(m.groups.title, withEnv, withPattern, runningApps));
  }
  if (found.length > 0) return found;
  // A spec that builds its own app: the first describe, the frameworks it builds, the env it gives them.
  const title = new RegExp(String.raw`test\.describe\(${TITLE}`).exec(source)?.groups.title;
  if (!title) return [];
  // A spec that writes its own Next.js middleware into the app it builds (handshake's clerkMiddleware, keys
  // from headers, against a local mock of Clerk's API): it tests @clerk/nextjs, which no app here has.
  if (/\.addFile\(\s*['"\x60]src\/middleware\.ts['"\x60][\s\S]{0,400}?['"]@clerk\/nextjs/.test(source))
    return [{ title, env: "withEmailCodes", app: null, needs: [NEXT_FILES] }];
  // A spec whose app list Clerk has emptied (`const configs = [];`, email-link's): it has no test to run.
  if (/const configs\s*=\s*\[\s*\]\s*;[\s\S]*configs\.forEach/.test(source))
    return [{ title, env: "withEmailCodes", app: null, needs: [NO_APPS] }];
  const frameworks = [...source.matchAll(/appConfigs\.(\w+)\.(\w+)/g)].filter((m) => m[1] !== "envs");
  // Machine authentication (API keys, M2M and OAuth tokens), as Clerk's @machine family runs it.
  if (/@machine\b/.test(title))
    return [
      { title, env: "withEmailCodes", app: null, needs: ["machine authentication (API keys, M2M and OAuth tokens)"] },
    ];
  const env = /withEnv\(\s*appConfigs\.envs\.(\w+)/.exec(source)?.[1] ?? "withEmailCodes";
  const describe = placed(
    title,
    [env],
    [],
    runningApps,
    frameworks.map((m) => `${m[1]}.${m[2]}`),
  );
  const taskUrls = taskUrlsOf(source);
  return [taskUrls ? { ...describe, appEnv: { CLERK_TASK_URLS: JSON.stringify(taskUrls) } } : describe];
}

function placed(title, withEnv, withPattern, runningApps, frameworks = []) {
  const describe = { title, env: withEnv[0] ?? "withEmailCodes", app: null, standsInFor: null };
  if (withPattern.length > 0) {
    const ids = runningApps.filter(
      (a) => withPattern.some((p) => globMatches(a.id, p)) && (withEnv.length === 0 || withEnv.includes(a.env)),
    );
    const chosen = ids.find((a) => appFor(a.id) && !appFor(a.id).standsInFor) ?? ids.find((a) => appFor(a.id));
    if (chosen) Object.assign(describe, appFor(chosen.id), { env: chosen.env });
    else describe.needs = [`an app of ${withPattern.join(", ")}`];
    return describe;
  }
  // Clerk's multi-domain production apps (multiple-apps-e2e.clerk.app, …), reached over the internet.
  if (/@(sessions|handshake)\b/.test(title))
    return { ...describe, needs: ["Clerk's production apps on *.clerk.app (the internet)"] };
  // A spec that builds its own app: the app it builds (an app of this harness before one standing in).
  const built = frameworks.map(appFor).filter(Boolean);
  // An app of a template this harness does not install (react-router-library, vue-vite, …).
  if (frameworks.length > 0 && built.length === 0)
    return { ...describe, needs: [`an app of ${frameworks.join(", ")}`] };
  const own = built.find((a) => !a.standsInFor) ?? built[0];
  if (own) Object.assign(describe, own);
  else if (/@react-router\b/.test(title)) describe.app = "react-router-node";
  else if (/@generic\b/.test(title)) describe.app = "react-vite";
  else Object.assign(describe, { app: "react-router-node", standsInFor: "next.appRouter" });
  return describe;
}

/**
 * A spec's tests that open a page beyond loopback (`waitForURL('https://clerk.com')`), or call the
 * Frontend API at the publishable key's own host (`https://${frontendApi}`: with --development,
 * clerk-emulator.clerk.accounts.dev, Clerk's domain, not the app's proxy): they need the internet.
 */
export function internetTests(source) {
  return testsWhoseBody(
    source,
    (body) =>
      /(?:waitForURL|goto)\(\s*['"\x60]https?:\/\/(?!localhost|127\.0\.0\.1)/.test(body) ||
      /\x60https:\/\/\$\{frontendApi\}/.test(body),
  );
}

export const INBOX = "a real inbox (the suite reads its emails from mailsac.com, over the internet)";

/**
 * A spec's tests that read an email the instance sent (`u.services.email`: the suite's emailService asks
 * mailsac.com's API for the message, and for a link, one on https), for an address not made fictional
 * (`+clerk_test`, whose code is 424242 and needs no inbox).
 */
export function inboxTests(source) {
  return testsWhoseBody(source, (body) => /\.services\.email\./.test(body));
}

/** The titles of a spec's tests whose own body (up to the next test or describe) `matches`. */
function testsWhoseBody(source, matches) {
  const bounds = [...source.matchAll(new RegExp(String.raw`\btest\(|testAgainstRunningApps\(|test\.describe\(`, "g"))];
  return [...source.matchAll(new RegExp(String.raw`\btest\(${TITLE}`, "g"))]
    .filter((m) => matches(source.slice(m.index, bounds.find((b) => b.index > m.index)?.index ?? source.length)))
    .map((m) => m.groups.title);
}

/**
 * Whether a describe's set-up (`beforeAll`, `beforeEach`) uses Clerk's oauth-provider application. Its
 * clean-up (`afterAll`) may too, to delete what a test made there: that alone does not stop its tests.
 */
function providerInSetUp(outsideTests) {
  const hooks = [...outsideTests.matchAll(/\btest\.(beforeAll|beforeEach|afterAll|afterEach)\(/g)];
  return [...outsideTests.matchAll(new RegExp(OAUTH_PROVIDER_USE, "g"))].some((use) => {
    const hook = hooks.filter((h) => h.index < use.index).at(-1);
    return !hook || hook[1].startsWith("before");
  });
}

/**
 * A spec's tests that sign in through Clerk's oauth-provider application in their own body, in a describe
 * that runs (a describe whose set-up uses the provider is left out whole, and tallied once).
 */
export function oauthProviderTests(source) {
  const calls = [...source.matchAll(new RegExp(String.raw`testAgainstRunningApps\(`, "g"))].map((m) => m.index);
  const inProviderDescribe = (title) => {
    const at = source.search(
      new RegExp(String.raw`\btest\(\s*['"\x60]${title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}['"\x60]`),
    );
    const start = calls.filter((c) => c < at).at(-1);
    if (start === undefined) return false;
    const describe = source.slice(start, calls.find((c) => c > start) ?? source.length);
    return providerInSetUp(describe.split(new RegExp(String.raw`\btest\(${TITLE}`)).at(0) ?? "");
  };
  return testsWhoseBody(source, (body) => OAUTH_PROVIDER_USE.test(body) || AT_THE_PROVIDER(body)).filter(
    (title) => !inProviderDescribe(title),
  );
}

/**
 * A spec's tests that compare a screenshot with Clerk's own baseline (`toHaveScreenshot`): the baselines
 * are Clerk's rendering on Clerk's CI machines, not in the suite's snapshot, and their pages are the
 * spec's own app files, which the standalone app here does not have.
 */
export function screenshotTests(source) {
  return testsWhoseBody(source, (body) => /\.toHaveScreenshot\(/.test(body));
}

/** Every describe's title in a spec (testAgainstRunningApps's and test.describe's). */
function titlesOf(source) {
  const opening = String.raw`(?:testAgainstRunningApps\(\s*\{[^}]*\}\s*\)\(|test\.describe\()`;
  return [...source.matchAll(new RegExp(`${opening}${TITLE}`, "g"))].map((m) => m.groups.title);
}

function specFiles(testsDir) {
  return readdirSync(testsDir, { recursive: true })
    .filter((f) => /\.test\.ts$/.test(f))
    .sort();
}

/** The spec files a command line names: a family's tag (`--family react-router`), or paths under integration/tests. */
export function selectSpecs(integrationDir, args) {
  const testsDir = join(integrationDir, "tests");
  const all = specFiles(testsDir);
  const files = new Set();
  for (let i = 0; i < args.length; i++) {
    if (args[i] === "--family") {
      // Clerk's CI picks a family with --grep @<tag>, which matches titles: a tag in a comment does not count.
      const tag = new RegExp(`@${args[++i]}\\b`);
      for (const f of all) if (titlesOf(readFileSync(join(testsDir, f), "utf8")).some((t) => tag.test(t))) files.add(f);
    } else {
      const path = args[i].replace(/^integration\/tests\//, "").replace(/\/$/, "");
      const isDir = statSync(join(testsDir, path), { throwIfNoEntry: false })?.isDirectory();
      if (isDir) {
        for (const f of all) if (f.startsWith(`${path}/`)) files.add(f);
      } else if (all.includes(path)) files.add(path);
      else throw new Error(`no spec integration/tests/${path}`);
    }
  }
  return [...files];
}

const escape = (title) => title.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The plan: groups of (app, env) with their files and describe titles, and what cannot run. */
export function plan(integrationDir, args) {
  const testsDir = join(integrationDir, "tests");
  const runningApps = longRunningApps(integrationDir);
  const groups = new Map();
  const notRun = [];
  for (const file of selectSpecs(integrationDir, args)) {
    const source = readFileSync(join(testsDir, file), "utf8");
    const describes = describesOf(source, runningApps, file);
    // A spec none of whose describes runs is tallied once, by its describes.
    const runs = describes.some((d) => !d.needs && envSettings(d.env).needs.length === 0);
    const internet = runs ? internetTests(source) : [];
    const screenshots = runs ? screenshotTests(source) : [];
    const provider = runs ? oauthProviderTests(source) : [];
    const inbox = runs ? inboxTests(source) : [];
    for (const title of internet)
      notRun.push({ file, title, needs: ["the internet (it reaches a host beyond loopback)"] });
    for (const title of screenshots)
      notRun.push({ file, title, needs: ["Clerk's screenshot baselines and the spec's own app files"] });
    for (const title of provider) notRun.push({ file, title, needs: [OAUTH_PROVIDER] });
    for (const title of inbox) notRun.push({ file, title, needs: [INBOX] });
    const offline = [...new Set([...internet, ...screenshots, ...provider, ...inbox])];
    if (describes.length === 0) notRun.push({ file, title: "(no describe found)", needs: ["a describe block"] });
    // A file all of whose tests are left out gives Playwright nothing to run ("No tests found").
    const tests = source.match(new RegExp(String.raw`\btest\(${TITLE}`, "g"))?.length ?? 0;
    if (offline.length > 0 && offline.length >= tests) continue;
    for (const d of describes) {
      const settings = envSettings(d.env);
      const needs = [...(d.needs ?? []), ...settings.needs];
      if (needs.length > 0) {
        notRun.push({ file, title: d.title, env: d.env, needs });
        continue;
      }
      // A spec whose own app sets app variables of its own (taskUrls) gets an app of its own.
      const key = `${d.app} ${d.env}${d.appEnv ? ` ${JSON.stringify(d.appEnv)}` : ""}`;
      const group = groups.get(key) ?? {
        app: d.app,
        env: d.env,
        ...settings,
        appEnv: { ...settings.appEnv, ...d.appEnv },
        files: [],
        titles: [],
        standsInFor: [],
      };
      if (!group.files.includes(file)) group.files.push(file);
      group.grepInvert = [...new Set([...(group.grepInvert ?? []), ...offline])];
      group.titles.push(d.title);
      if (d.standsInFor && !group.standsInFor.includes(`${file}: ${d.standsInFor}`))
        group.standsInFor.push(`${file}: ${d.standsInFor}`);
      groups.set(key, group);
    }
  }
  // A file split between groups runs, in each, only its describes of that group (Playwright's --grep).
  const groupsOf = (file) => [...groups.values()].filter((g) => g.files.includes(file)).length;
  for (const group of groups.values())
    group.grep = group.files.some((f) => groupsOf(f) > 1 || notRun.some((n) => n.file === f))
      ? group.titles.map(escape).join("|")
      : null;
  for (const group of groups.values())
    group.grepInvert = group.grepInvert.length > 0 ? group.grepInvert.map(escape).join("|") : null;
  return { groups: [...groups.values()], notRun, root: relative(process.cwd(), integrationDir) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const [integrationDir, ...args] = process.argv.slice(2);
  console.log(JSON.stringify(plan(integrationDir, args), null, 2));
}
