// `npm run audit`: Lighthouse (the npm package, 12.8.x for Node 20) in
// Debian's Chromium against the built server in local mode: the landing page,
// an organization's home and its members page; mobile and desktop; light and
// dark. Prints one table of scores. Not part of `npm test` (about 3 minutes).
import { spawn, execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import * as chromeLauncher from "chrome-launcher";
import lighthouse from "lighthouse";
import desktopConfig from "lighthouse/core/config/desktop-config.js";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// The same flags as the tests' Chromium: it makes no connections of its own.
const CHROMIUM_FLAGS = ["--headless=new", ...JSON.parse(readFileSync("tests/support/chromium-args.json", "utf8"))];
const TARGETS = { performance: 95, accessibility: 100, "best-practices": 100, seo: 95 };

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
  const session = await (
    await fetch(`${origin}/__clerk/_emulator/sessions`, {
      method: "POST",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify({ email: "ada@example.com", organizationId: "org_seed_engines" }),
    })
  ).json();
  const signedIn = `__session=${session.sessionToken}; __client_uat=${session.clientUat}`;
  const themeCookie = async (theme) => {
    const res = await fetch(`${origin}/resources/theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin },
      body: `theme=${theme}&redirectTo=%2F`,
      redirect: "manual",
    });
    return (res.headers.get("set-cookie") ?? "").split(";")[0];
  };
  const cookies = { light: await themeCookie("light"), dark: await themeCookie("dark") };
  const pages = [
    { name: "landing", path: "/", cookie: "" },
    { name: "organization home", path: "/orgs/analytical-engines", cookie: signedIn },
    { name: "members", path: "/orgs/analytical-engines/members", cookie: signedIn },
  ];

  const rows = [];
  for (const page of pages) {
    for (const form of ["mobile", "desktop"]) {
      for (const theme of ["light", "dark"]) {
        const cookie = [page.cookie, cookies[theme]].filter(Boolean).join("; ");
        const result = await lighthouse(
          `${origin}${page.path}`,
          { port: chrome.port, output: "json", logLevel: "error", extraHeaders: { Cookie: cookie } },
          form === "desktop" ? desktopConfig : undefined,
        );
        const { categories, audits } = result.lhr;
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
          failing: failing.join(" "),
        });
      }
    }
  }

  console.log("\n| page | form | theme | performance | accessibility | best practices | SEO | failing audits |");
  console.log("| --- | --- | --- | ---: | ---: | ---: | ---: | --- |");
  for (const r of rows) {
    console.log(
      `| ${r.page} | ${r.form} | ${r.theme} | ${r.performance} | ${r.accessibility} | ${r["best-practices"]} | ${r.seo} | ${r.failing || "—"} |`,
    );
  }
  const misses = rows.flatMap((r) =>
    Object.entries(TARGETS)
      .filter(([id, target]) => {
        if (id === "performance" && r.form !== "desktop") return false;
        if (id === "seo" && r.page !== "landing") return false;
        return r[id] < target;
      })
      .map(([id, target]) => `${r.page} (${r.form}, ${r.theme}): ${id} ${r[id]} < ${target}`),
  );
  console.log(misses.length ? `\nTargets missed:\n${misses.join("\n")}` : "\nEvery target met.");
} finally {
  await chrome.kill();
  process.kill(-server.pid, "SIGTERM");
}
