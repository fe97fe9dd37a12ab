import type { ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "@playwright/test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { contractBreaches, readAnswers } from "../support/contract";
import { openAfterExpiry, sessionTokenClaims } from "../support/expired-session";
import { isLoopbackUrl, NETWORK_GUARD_PATH } from "../support/guard";
import { spawnGroup, stopGroup, waitForPort } from "../support/process-group";
import { freePort, ROOT } from "../support/server";

// Issue 40's Core 2 proof: Clerk's Remix quickstart (@clerk/remix 4, clerk-js 5),
// built here from tests/fixtures/core2, behind the one /__clerk proxy rule, against
// `npm run emulator` in its own process, driven in real Chromium.
const FIXTURE = join(ROOT, "tests/fixtures/core2");
// Clerk's own session token lifetime (the emulator's default).
const TOKEN_TTL = 60;
// @clerk/backend accepts a token this many seconds past its exp.
const CLOCK_SKEW = 5;

const children: ChildProcess[] = [];
const output = new Map<ChildProcess, string>();
let env: Record<string, string> = {};
let origin = "";
let browser: Browser;
let context: BrowserContext;
let page: Page;
const offLoopback: string[] = [];

/** A child in its own process group, nothing beyond loopback, killed with this process whatever happens. */
function start(args: string[], extraEnv: Record<string, string>, cwd = ROOT): ChildProcess {
  const child = spawnGroup(process.execPath, args, cwd, {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    NODE_OPTIONS: `--require ${NETWORK_GUARD_PATH}`,
    NODE_ENV: "production",
    ...extraEnv,
  });
  children.push(child);
  output.set(child, "");
  const keep = (d: Buffer) => output.set(child, output.get(child)! + d.toString());
  child.stdout?.on("data", keep);
  child.stderr?.on("data", keep);
  return child;
}

function waitForOutput(child: ChildProcess, pattern: RegExp, what: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(
      () => reject(new Error(`${what}: no ${pattern} within 30 s:\n${output.get(child)}`)),
      30_000,
    );
    const check = () => {
      if (!pattern.test(output.get(child)!)) return;
      clearTimeout(timer);
      resolve(output.get(child)!);
    };
    child.stdout?.on("data", check);
    child.once("exit", (code) => {
      clearTimeout(timer);
      if (pattern.test(output.get(child)!)) resolve(output.get(child)!);
      else reject(new Error(`${what} exited (${code}):\n${output.get(child)}`));
    });
  });
}

/** What the index route's loader saw, as it printed it. */
async function loaderSees(target: Page) {
  const text = (id: string) => target.locator(`#${id}`).textContent();
  return {
    user: await text("user"),
    org: await text("org"),
    slug: await text("slug"),
    role: await text("role"),
    permissions: await text("permissions"),
  };
}

async function issuedAt(target: Page) {
  return Number(await target.locator("#iat").textContent());
}

async function untilLoaderSees(target: Page, id: string, value: string) {
  await target.locator(`#${id}`, { hasText: new RegExp(`^${value}$`) }).waitFor({ timeout: 20_000 });
}

beforeAll(async () => {
  // remix build, as the quickstart's `npm run build` (about a second for this app).
  const build = start(["node_modules/@remix-run/dev/dist/cli.js", "build", FIXTURE], { NODE_ENV: "production" });
  const built = await new Promise<number | null>((done) => build.once("exit", done));
  expect(built, output.get(build)).toBe(0);

  const appPort = await freePort();
  origin = `http://localhost:${appPort}`;
  const emulatorPort = await freePort();
  const emulator = start(
    [
      "scripts/emulator.mjs",
      "--port",
      String(emulatorPort),
      "--data-dir",
      "memory",
      "--proxy-url",
      `${origin}/__clerk`,
    ],
    // Every answer recorded for the contract check (tests/support/contract-setup.ts).
    { CLERK_EMULATOR_RECORD_DIR: process.env.CLERK_EMULATOR_RECORD_DIR!, NODE_ENV: "test" },
  );
  const printed = await waitForOutput(emulator, /^CLERK_PROXY_URL=.*$/m, "the emulator");
  env = Object.fromEntries([...printed.matchAll(/^(CLERK_[A-Z_]+)=(.+)$/gm)].map((m) => [m[1]!, m[2]!]));
  const emulatorUrl = /listening on (http:\S+)/.exec(printed)![1]!;

  // The printed .env lines, as the quickstart's .env would hold them. CLERK_JS too:
  // @clerk/shared builds clerk-js's URL from proxyUrl as https://<host>/npm/…, so
  // an http:// app origin must name the emulator's CDN path itself.
  const app = {
    ...env,
    CLERK_JS: `${origin}/__clerk/npm/@clerk/clerk-js@5/dist/clerk.browser.js`,
    CLERK_TELEMETRY_DISABLED: "1",
    CLERK_EMULATOR_URL: emulatorUrl,
    PORT: String(appPort),
  };
  start(["server.mjs"], app, FIXTURE);
  await waitForPort(appPort, "the fixture app");

  browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  context = await browser.newContext();
  await context.route(
    (url) => !isLoopbackUrl(url.href),
    (route) => {
      offLoopback.push(route.request().url());
      return route.abort();
    },
  );
  page = await context.newPage();
}, 90_000);

afterAll(async () => {
  await browser?.close();
  // Every process group, whatever happened above.
  await Promise.all(children.map((child) => stopGroup(child, "SIGKILL")));
});

describe("Clerk's Remix quickstart (Core 2) against npm run emulator", () => {
  let orgBefore = "";
  // Cookies as they stood before the wait below, for the JavaScript-off document after expiry:
  // one minute's wait serves both tests.
  let beforeExpiry: Awaited<ReturnType<BrowserContext["storageState"]>>;

  it("signs in with a password in <SignIn/>, and the loader's getAuth sees the user", async () => {
    await page.goto(origin);
    expect((await loaderSees(page)).user).toBe("none");
    await page.locator("input[name=identifier]").fill("ada@example.com");
    await page.locator(".cl-formButtonPrimary").click();
    await page.locator("input[name=password]").fill("teamwork-demo");
    await page.locator(".cl-formButtonPrimary").click();
    await untilLoaderSees(page, "user", "user_seed_ada");
    await page.reload();
    const seen = await loaderSees(page);
    expect(seen.user).toBe("user_seed_ada");
    orgBefore = seen.org!;
  }, 60_000);

  it("switches organization in <OrganizationSwitcher/>, and the loader sees its id and slug", async () => {
    const target =
      orgBefore === "org_seed_difference"
        ? { id: "org_seed_engines", name: "Analytical Engines", slug: "analytical-engines", role: "org:admin" }
        : { id: "org_seed_difference", name: "Difference & Co", slug: "difference-co", role: "org:member" };
    await page.locator(".cl-organizationSwitcherTrigger").click();
    await page.locator(".cl-organizationSwitcherPreviewButton", { hasText: target.name }).click();
    await untilLoaderSees(page, "org", target.id);
    await page.reload();
    // @clerk/backend 2 read them from a version 2 token: `o.id`, `o.slg`, and `o.rol` without its `org:` prefix.
    const claims = sessionTokenClaims(await page.context().cookies());
    expect(claims).toMatchObject({ v: 2, o: { id: target.id, slg: target.slug, rol: target.role.slice(4) } });
    expect(await loaderSees(page)).toEqual({
      user: "user_seed_ada",
      org: target.id,
      slug: target.slug,
      role: target.role,
      // The seeded roles have no custom permissions (system ones are never in a token).
      permissions: "[]",
    });
  }, 60_000);

  it("keeps the session past the token's 60 s lifetime with JavaScript on: clerk-js refreshes the token", async () => {
    const before = await loaderSees(page);
    const iat = await issuedAt(page);
    beforeExpiry = await context.storageState();
    await page.waitForTimeout((TOKEN_TTL + CLOCK_SKEW + 1) * 1000);
    const documents: string[] = [];
    page.on("request", (r) => r.isNavigationRequest() && documents.push(r.url()));
    await page.reload();
    expect(await loaderSees(page)).toEqual(before);
    // clerk-js fetched a new token before the old one ran out.
    expect(await issuedAt(page)).toBeGreaterThan(iat);
    // Refreshed in the browser, so the document needed no handshake.
    expect(documents.filter((u) => u.includes("/handshake"))).toEqual([]);
  }, 120_000);

  it("answers a document GET after expiry with JavaScript off: through the handshake, back signed in", async () => {
    const before = await loaderSees(page);
    const {
      context: noScript,
      page: plain,
      response,
      documents,
      copied,
    } = await openAfterExpiry(browser, beforeExpiry, origin, CLOCK_SKEW);
    try {
      expect(response?.status()).toBe(200);
      expect(documents).toContainEqual(expect.stringMatching(`^${origin}/__clerk/v1/client/handshake\\?`));
      expect(await loaderSees(plain)).toEqual(before);
      // A token minted by the handshake, not the expired copy.
      expect(await issuedAt(plain)).toBeGreaterThan(copied.iat);
    } finally {
      await noScript.close();
    }
  }, 60_000);

  it("signs out in <UserButton/>, and the loader then sees no user", async () => {
    await page.reload();
    await page.locator(".cl-userButtonTrigger").click();
    await page.locator(".cl-userButtonPopoverActionButton__signOut").click();
    await untilLoaderSees(page, "user", "none");
    await page.reload();
    expect((await loaderSees(page)).user).toBe("none");
  }, 60_000);

  it("answered every call as Clerk's OpenAPI description says, and reached nothing beyond loopback", () => {
    const dir = process.env.CLERK_EMULATOR_RECORD_DIR!;
    const answers = readdirSync(dir).flatMap((name) => readAnswers(join(dir, name)).answers);
    // The flows above went through both APIs: a check of nothing would prove nothing.
    expect(answers.some((a) => a.api === "fapi" && a.path === "/v1/client/sign_ins")).toBe(true);
    expect(answers.some((a) => a.api === "fapi" && a.path.includes("/touch"))).toBe(true);
    expect(contractBreaches(answers)).toEqual([]);
    expect(offLoopback).toEqual([]);
  });
});
