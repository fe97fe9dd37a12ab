// The README's screenshots (docs/screenshot-light.png, -dark.png): the built
// server in local mode, Ada signed in, her organization's home at 1280×800 in
// each theme, in Debian's Chromium. `npm run build` first; run again after a
// visible change.
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { chromium } from "@playwright/test";

const port = 4899;
const origin = `http://localhost:${port}`;
const server = spawn(process.execPath, ["build/server.js"], {
  env: {
    PATH: process.env.PATH,
    PORT: String(port),
    CLERK_EMULATOR_DATA_DIR: "memory",
    CLERK_EMULATOR_CONTROL: "1",
    LOG_LEVEL: "silent",
  },
  stdio: "ignore",
});
const browser = await chromium.launch({
  executablePath: "/usr/bin/chromium",
  args: JSON.parse(readFileSync("tests/support/chromium-args.json", "utf8")),
});
try {
  for (let i = 0; !(await fetch(`${origin}/healthz`).catch(() => null))?.ok; i++) {
    if (i > 100) throw new Error("the server did not start");
    await new Promise((r) => setTimeout(r, 100));
  }
  const session = await fetch(`${origin}/__clerk/_emulator/sessions`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify({ email: "ada@example.com", organizationId: "org_seed_engines" }),
  }).then((r) => r.json());
  for (const theme of ["light", "dark"]) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, colorScheme: theme });
    // The theme menu's own form: the server paints the page in that theme.
    await context.request.post(`${origin}/resources/theme`, {
      form: { theme },
      headers: { Origin: origin },
      maxRedirects: 0,
    });
    await context.addCookies(session.cookies.map((cookie) => ({ ...cookie, domain: "localhost" })));
    const page = await context.newPage();
    await page.goto(`${origin}/orgs/analytical-engines`);
    await page.getByTestId("member-count").waitFor();
    await page.screenshot({ path: `docs/screenshot-${theme}.png` });
    await context.close();
  }
} finally {
  await browser.close();
  server.kill("SIGTERM");
}
