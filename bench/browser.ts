/**
 * Page metrics in Chromium (1280×800, no throttling): first-load JavaScript
 * (and what is fetched after the page), LCP, CLS and TBT of the landing page
 * and the organization home in both themes, the peer's beside them, and the
 * home's first-load JavaScript by package.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium, type Browser } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../tests/support/chromium";
import { emulatorSession } from "../tests/support/session";
import { ORG_HOME, type Fleet } from "./fleet";
import { ROOT, url } from "./servers";
import { fmt } from "./stats";

type PageMetrics = { jsKb: number; laterKb: number; lcp: number; cls: number; tbt: number; scripts: string[] };

const OBSERVE = () => {
  const m = { lcp: 0, cls: 0, tasks: [] as [number, number][] };
  (window as unknown as { __bench: typeof m }).__bench = m;
  new PerformanceObserver((l) => l.getEntries().forEach((e) => (m.lcp = e.startTime))).observe({
    type: "largest-contentful-paint",
    buffered: true,
  });
  new PerformanceObserver((l) =>
    l.getEntries().forEach((e) => {
      const shift = e as PerformanceEntry & { value: number; hadRecentInput: boolean };
      if (!shift.hadRecentInput) m.cls += shift.value;
    }),
  ).observe({ type: "layout-shift", buffered: true });
  new PerformanceObserver((l) => l.getEntries().forEach((e) => m.tasks.push([e.startTime, e.duration]))).observe({
    type: "longtask",
    buffered: true,
  });
};

async function pageMetrics(
  browser: Browser,
  origin: string,
  path: string,
  theme: "light" | "dark",
  cookies: string | null,
): Promise<PageMetrics> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
  await context.request.post(`${origin}/resources/theme`, {
    form: { theme },
    headers: { Origin: origin },
    maxRedirects: 0,
  });
  if (cookies) {
    await context.addCookies(
      cookies.split("; ").map((pair) => {
        const [name, ...value] = pair.split("=");
        return { name: name!, value: value.join("="), url: origin };
      }),
    );
  }
  await context.addInitScript(OBSERVE);
  const page = await context.newPage();
  const scripts = new Map<string, Promise<number>>();
  page.on("response", (response) => {
    const url = new URL(response.url());
    // JavaScript, without clerk-js (it loads asynchronously, from its own path).
    if (url.pathname.endsWith(".js") && !url.pathname.startsWith("/_clerk-js/")) {
      scripts.set(
        url.pathname,
        response.body().then(
          (b) => gzipSync(b).length,
          () => 0,
        ),
      );
    }
  });
  // Signed in, clerk-js keeps the network busy (token refresh), so: the load event, then a settle.
  const html = (await (await page.goto(origin + path, { waitUntil: "load" }))!.text()) ?? "";
  await page.waitForTimeout(3_000);
  const result = await page.evaluate(() => {
    const m = (window as unknown as { __bench: { lcp: number; cls: number; tasks: [number, number][] } }).__bench;
    const fcp = performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? 0;
    const tbt = m.tasks.filter(([start]) => start >= fcp).reduce((sum, [, d]) => sum + Math.max(0, d - 50), 0);
    return { lcp: m.lcp, cls: m.cls, tbt };
  });
  // First-load JavaScript is what the document itself asks for (its module scripts and preloads);
  // parts fetched later (menus, popover and dialog, when the browser is idle) are counted apart.
  // (Remix renders its preloads on the server only, so they are read from the HTML as sent.)
  const documentScripts = [...html.matchAll(/(?:rel="modulepreload" href=|import[^"]*)"(\/[^"]+\.js)"/g)].map(
    (m) => m[1]!,
  );
  const paths = [...scripts.keys()].filter((path) => documentScripts.includes(path));
  const size = async (list: string[]) =>
    (await Promise.all(list.map((path) => scripts.get(path)!))).reduce((a, b) => a + b, 0);
  const jsBytes = await size(paths);
  const laterBytes = await size([...scripts.keys()].filter((path) => !documentScripts.includes(path)));
  await context.close();
  return { jsKb: jsBytes / 1024, laterKb: laterBytes / 1024, ...result, scripts: paths };
}

type Metafile = { outputs: Record<string, { inputs: Record<string, { bytesInOutput: number }> }> };

const GROUPS: [string, RegExp][] = [
  [
    "framework (React, Remix, React Router)",
    /^(react|react-dom|scheduler|@remix-run\/.*|react-router.*|turbo-stream|@web3-storage\/.*)$/,
  ],
  ["Clerk React SDK (@clerk/*)", /^@clerk\//],
  [
    "Radix (@radix-ui/*, radix-ui)",
    /^(@radix-ui\/.*|radix-ui|@floating-ui\/.*|aria-hidden|react-remove-scroll.*|use-callback-ref|use-sidecar|react-style-singleton|get-nonce|detect-node-es|tslib|classnames)$/,
  ],
  ["nprogress", /^nprogress$/],
  ["this app (app/)", /^app\//],
];

/**
 * First-load JavaScript by package, from the client build's esbuild metafile:
 * minified bytes of each package in the scripts the page loaded.
 */
function jsByPackage(loaded: string[]): Map<string, number> {
  const meta = JSON.parse(readFileSync(join(ROOT, "build/metafile.js.json"), "utf8")) as Metafile;
  const byPackage = new Map<string, number>();
  for (const [output, { inputs }] of Object.entries(meta.outputs)) {
    if (!loaded.some((path) => output === `public${path}`)) continue;
    for (const [input, { bytesInOutput }] of Object.entries(inputs)) {
      const pkg =
        /.*node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(input)?.[1] ?? (input.startsWith("app/") ? "app/" : input);
      byPackage.set(pkg, (byPackage.get(pkg) ?? 0) + bytesInOutput);
    }
  }
  return byPackage;
}

export async function browserPhase({ ports, clerk }: Fleet) {
  console.log("Browser: Chromium, 1280×800, no throttling…");
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  // The browser uses the stand-in's own app (local mode: clerk-js and its Frontend API on the same origin).
  const browserOrigin = `http://localhost:${ports.clerk}`;
  // Every cookie a real sign-in leaves, Clerk's client included (else clerk-js finds no session and the page reloads its data).
  const browserCookie = (await emulatorSession(clerk.origin, "ada@example.com", "org_seed_engines")).cookies
    .map(({ name, value }) => `${name}=${value}`)
    .join("; ");
  const pages: [string, PageMetrics][] = [];
  for (const theme of ["light", "dark"] as const) {
    pages.push([`landing, ${theme}`, await pageMetrics(browser, browserOrigin, "/", theme, null)]);
    pages.push([
      `organization home, ${theme}`,
      await pageMetrics(browser, browserOrigin, ORG_HOME, theme, browserCookie),
    ]);
  }
  // The peer carries the same framework and Clerk floor: its first-load JS is the yardstick.
  const peerPage = await pageMetrics(browser, url(ports.peer), "/", "light", clerk.cookie);
  await browser.close();
  return { pages, peerPage };
}

/** The page table, the peer's row, first-load JS against the peer's, and the home's first-load JS by package. */
export function printPages({ pages, peerPage }: Awaited<ReturnType<typeof browserPhase>>) {
  console.log(
    "\n| page (Chromium) | first-load JS, KB gzip (no clerk-js) | JS fetched after the page, KB gzip | LCP ms | CLS (target 0.00) | TBT ms |\n| --- | ---: | ---: | ---: | ---: | ---: |",
  );
  for (const [name, m] of pages)
    console.log(
      `| ${name} | ${fmt(m.jsKb, 1)} | ${fmt(m.laterKb, 1)} | ${fmt(m.lcp)} | ${fmt(m.cls, 2)} | ${fmt(m.tbt)} |`,
    );

  const home1 = pages.find(([name]) => name === "organization home, light")![1];
  const jsTarget = peerPage.jsKb + 15;
  console.log(
    `| peer: Clerk's Remix quickstart, signed in | ${fmt(peerPage.jsKb, 1)} | ${fmt(peerPage.laterKb, 1)} | ${fmt(peerPage.lcp)} | ${fmt(peerPage.cls, 2)} | ${fmt(peerPage.tbt)} |`,
  );
  console.log(
    `\nFirst-load JS, organization home: ${fmt(home1.jsKb, 1)} KB gzip, the peer's + ${fmt(home1.jsKb - peerPage.jsKb, 1)} KB (target ≤ peer + 15 = ${fmt(jsTarget, 1)}: ${home1.jsKb <= jsTarget ? "met" : "missed"}).`,
  );
  const byPackage = jsByPackage(home1.scripts);
  const minified = [...byPackage.values()].reduce((a, b) => a + b, 0);
  // Gzip cannot be split by package; each package's share of the minified bytes is applied to the gzip total.
  const gzipShare = (bytes: number) => fmt((bytes / minified) * home1.jsKb, 1);
  console.log("\n| organization home's first-load JS, by package | KB minified | ≈ KB gzip |\n| --- | ---: | ---: |");
  const grouped = new Map<string, number>();
  for (const [pkg, bytes] of byPackage) {
    const group = GROUPS.find(([, pattern]) => pattern.test(pkg))?.[0] ?? "other";
    grouped.set(group, (grouped.get(group) ?? 0) + bytes);
  }
  for (const [group, bytes] of [...grouped].sort((a, b) => b[1] - a[1]))
    console.log(`| **${group}** | ${fmt(bytes / 1024, 1)} | ${gzipShare(bytes)} |`);
  for (const [pkg, bytes] of [...byPackage].sort((a, b) => b[1] - a[1]).slice(0, 15))
    console.log(`| ${pkg} | ${fmt(bytes / 1024, 1)} | ${gzipShare(bytes)} |`);
}
