// `npm run audit`: Lighthouse (the npm package, 12.8.x for Node 20) in
// Debian's Chromium against the built server in local mode: the landing page,
// Clerk's sign-in, the list of organizations, an organization's home and its
// members page, the user profile; mobile and desktop; light and dark. Prints
// one table of scores and the metrics behind the performance score. Not part
// of `npm test` (about 3 minutes a form factor).
//   --only mobile|desktop   one form factor
//   --reports DIR           also write each Lighthouse report (JSON) to DIR
import { spawn, execSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import puppeteer from "puppeteer-core";
import desktopConfig from "lighthouse/core/config/desktop-config.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// The same flags as the tests' Chromium: it makes no connections of its own.
const CHROMIUM_FLAGS = ["--headless=new", ...JSON.parse(readFileSync("tests/support/chromium-args.json", "utf8"))];
// Performance: 95 on desktop and on a phone (Lighthouse's slow-4G, 4× CPU slowdown profile).
const TARGETS = { performance: { desktop: 95, mobile: 95 }, accessibility: 100, "best-practices": 100, seo: 95 };
const target = (id, form) => (typeof TARGETS[id] === "object" ? TARGETS[id][form] : TARGETS[id]);
const argument = (name) => {
  const i = process.argv.indexOf(name);
  return i > 0 ? process.argv[i + 1] : undefined;
};
const forms = argument("--only") ? [argument("--only")] : ["mobile", "desktop"];
const reports = argument("--reports");
if (reports) mkdirSync(reports, { recursive: true });
// The metrics the performance score is made of, as Lighthouse names them.
const METRICS = [
  ["FCP", "first-contentful-paint"],
  ["LCP", "largest-contentful-paint"],
  ["TBT", "total-blocking-time"],
  ["SI", "speed-index"],
  ["CLS", "cumulative-layout-shift"],
];

/** Why a Lighthouse result is no measurement (its runtime error, or a category it could not score), or null. */
function auditFailure(lhr) {
  if (!lhr) return "no result";
  if (lhr.runtimeError) return `${lhr.runtimeError.code}: ${lhr.runtimeError.message}`;
  const unscored = Object.keys(TARGETS).filter((id) => typeof lhr.categories[id]?.score !== "number");
  return unscored.length ? `no score for ${unscored.join(", ")}` : null;
}

const freePort = () =>
  new Promise((done) => {
    const srv = createServer().listen(0, "127.0.0.1", () => {
      const { port } = srv.address();
      srv.close(() => done(port));
    });
  });

async function waitFor(url) {
  for (let i = 0; i < 200; i++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${url} did not answer`);
}

if (!existsSync("build/server.js")) execSync("npm run build", { stdio: "inherit" });

const port = await freePort();
const origin = `http://localhost:${port}`;
const server = spawn(process.execPath, ["build/server.js"], {
  env: {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    CLERK_EMULATOR_DATA_DIR: "memory",
    CLERK_EMULATOR_CONTROL: "1",
    CLERK_EMULATOR_TOKEN_TTL: "3600",
    LOG_LEVEL: "silent",
  },
  stdio: "ignore",
  detached: true,
});
const chrome = await (async () => {
  await waitFor(`${origin}/healthz`);
  return chromeLauncher.launch({ chromePath: CHROMIUM, chromeFlags: CHROMIUM_FLAGS });
})();

try {
  // A fresh sign-in for each run, as a browser keeps it: every cookie a real
  // sign-in leaves, Clerk's client (`__client`) included, so clerk-js finds
  // its session (with the server's two alone it would see none, and the page
  // would reload its data as after a sign-out). Lighthouse clears the cache
  // and storage before a run, not cookies.
  const signIn = async () => {
    const res = await fetch(`${origin}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", organizationId: "org_seed_engines" }),
    });
    return (await res.json()).cookies;
  };
  const themeCookie = async (theme) => {
    const res = await fetch(`${origin}/resources/theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
      body: `theme=${theme}&redirectTo=%2F`,
      redirect: "manual",
    });
    const [name, ...value] = (res.headers.get("set-cookie") ?? "").split(";")[0].split("=");
    return { name, value: value.join("="), path: "/" };
  };
  const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` });
  const setCookies = async (cookies) => {
    const tab = await browser.newPage();
    const cdp = await tab.createCDPSession();
    await cdp.send("Network.clearBrowserCookies");
    await cdp.send("Network.setCookies", { cookies: cookies.map((c) => ({ ...c, domain: "localhost" })) });
    await tab.close();
  };
  const pages = [
    { name: "landing", path: "/", signedIn: false },
    { name: "sign-in", path: "/sign-in", signedIn: false },
    { name: "organizations", path: "/orgs", signedIn: true },
    { name: "organization home", path: "/orgs/analytical-engines", signedIn: true },
    { name: "members", path: "/orgs/analytical-engines/members", signedIn: true },
    { name: "user profile", path: "/user", signedIn: true },
  ];

  const rows = [];
  for (const page of pages) {
    for (const form of forms) {
      for (const theme of ["light", "dark"]) {
        // A run Lighthouse could not finish (a runtime error, a category without a score) is tried
        // once more, then reported as a failure: never as a score of 0.
        let result;
        let failure = null;
        for (let attempt = 1; attempt <= 2; attempt++) {
          await setCookies([await themeCookie(theme), ...(page.signedIn ? await signIn() : [])]);
          try {
            result = await lighthouse(
              `${origin}${page.path}`,
              { port: chrome.port, output: "json", logLevel: "error" },
              form === "desktop" ? desktopConfig : undefined,
            );
            failure = auditFailure(result?.lhr);
          } catch (error) {
            failure = String(error?.message ?? error);
          }
          if (!failure) break;
          console.error(`${page.name} (${form}, ${theme}), attempt ${attempt}: the audit failed: ${failure}`);
        }
        if (failure) {
          rows.push({ page: page.name, form, theme, failure });
          continue;
        }
        const { categories, audits } = result.lhr;
        if (reports) writeFileSync(`${reports}/${page.name.replace(/ /g, "-")}-${form}-${theme}.json`, result.report);
        const score = (id) => Math.round((categories[id]?.score ?? 0) * 100);
        const failing = Object.values(audits)
          .filter((a) => a.score !== null && a.score < 1 && a.scoreDisplayMode === "binary")
          .map((a) => a.id);
        rows.push({
          page: page.name,
          form,
          theme,
          performance: score("performance"),
          accessibility: score("accessibility"),
          "best-practices": score("best-practices"),
          seo: score("seo"),
          metrics: METRICS.map(([, id]) => audits[id]?.displayValue ?? "?").join(" · "),
          failing: failing.join(" "),
        });
      }
    }
  }

  const metricNames = METRICS.map(([name]) => name).join(" · ");
  console.log(
    `\n| page | form | theme | performance | ${metricNames} | accessibility | best practices | SEO | failing audits |`,
  );
  console.log("| --- | --- | --- | ---: | --- | ---: | ---: | ---: | --- |");
  for (const r of rows) {
    if (r.failure) {
      console.log(`| ${r.page} | ${r.form} | ${r.theme} | audit failed | ${r.failure} | | | | |`);
      continue;
    }
    console.log(
      `| ${r.page} | ${r.form} | ${r.theme} | ${r.performance} | ${r.metrics} | ${r.accessibility} | ${r["best-practices"]} | ${r.seo} | ${r.failing || "—"} |`,
    );
  }
  const misses = rows.flatMap((r) =>
    r.failure
      ? [`${r.page} (${r.form}, ${r.theme}): the audit failed twice (${r.failure})`]
      : Object.keys(TARGETS)
          // Pages behind sign-in are not for search engines (no description, not crawlable).
          .filter((id) => (id !== "seo" || r.page === "landing") && r[id] < target(id, r.form))
          .map((id) => `${r.page} (${r.form}, ${r.theme}): ${id} ${r[id]} < ${target(id, r.form)}`),
  );
  console.log(misses.length ? `\nTargets missed:\n${misses.join("\n")}` : "\nEvery target met.");
  if (misses.length) process.exitCode = 1;
  await browser.disconnect();
} finally {
  await chrome.kill();
  process.kill(-server.pid, "SIGTERM");
}
