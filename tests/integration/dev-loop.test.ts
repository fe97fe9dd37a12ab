import { chromium, type Browser, type Page } from "@playwright/test";
import { afterAll, describe, expect, it } from "vitest";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import { startDevServer, type DevServer } from "../support/dev-server";
import { startServer } from "../support/server";
import { emulatorSession } from "../support/session";

// `npm run dev` on a copy of the app, edited as a developer would, watched in
// a real browser. `npm run bench` measures how fast an edit shows.
let dev: DevServer | null = null;
let browser: Browser | null = null;

afterAll(async () => {
  await browser?.close();
  await dev?.stop();
});

/** The headers a page's response carries for the browser's safety, the nonce left out. */
async function securityHeaders(origin: string): Promise<Record<string, string>> {
  const names = [
    "content-security-policy",
    "x-content-type-options",
    "x-frame-options",
    "referrer-policy",
    "permissions-policy",
    "cross-origin-opener-policy",
    "strict-transport-security",
    "cache-control",
    "vary",
  ];
  const headers = (await fetch(origin)).headers;
  return Object.fromEntries(
    names.flatMap((name) => {
      const value = headers.get(name);
      return value === null ? [] : [[name, value.replace(/'nonce-[^']+'/, "'nonce'")]];
    }),
  );
}

/** Whether the page is still the document loaded at the start: no reload happened. */
const samePage = (page: Page) =>
  page.evaluate(() => (window as unknown as { loadedOnce?: boolean }).loadedOnce === true);

describe("npm run dev", () => {
  it(
    "shows component, stylesheet and loader edits without a page load, and restarts on a server or emulator edit, keeping the session",
    { timeout: 360_000 },
    async () => {
      dev = await startDevServer();
      const { origin, devPort, edit, until, output } = dev;

      // Development's headers are production's, with remix dev's socket allowed.
      const production = await startServer();
      try {
        const [devHeaders, productionHeaders] = [
          await securityHeaders(origin),
          await securityHeaders(production.origin),
        ];
        expect(devHeaders["content-security-policy"]).toContain(`connect-src 'self' ws://localhost:${devPort};`);
        expect(productionHeaders["content-security-policy"]).toContain("connect-src 'self';");
        devHeaders["content-security-policy"] = devHeaders["content-security-policy"]!.replace(
          ` ws://localhost:${devPort}`,
          "",
        );
        expect(devHeaders).toEqual(productionHeaders);
      } finally {
        await production.stop();
      }

      browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
      const context = await browser.newContext();
      // Remix's hot update hands the router the new routes, lets it settle, then runs React
      // Refresh in a timer of 1 ms; React usually renders the new routes first, but not always.
      // Holding that timer back makes "first" certain, so the component edit below shows what
      // React does with the new routes before React Refresh has run.
      await context.addInitScript(() => {
        const setTimeout = window.setTimeout;
        window.setTimeout = ((run: TimerHandler, ms?: number, ...rest: unknown[]) =>
          setTimeout(
            run,
            typeof run === "function" && run.toString().includes("performReactRefresh") ? 500 : ms,
            ...rest,
          )) as typeof window.setTimeout;
      });
      const session = await emulatorSession(origin, "ada@example.com");
      await context.addCookies(session.cookies.map((cookie) => ({ ...cookie, domain: "localhost" })));
      const page = await context.newPage();
      const devSocket = page.waitForEvent("websocket", (socket) =>
        socket.url().startsWith(`ws://localhost:${devPort}/`),
      );
      await page.goto(`${origin}/orgs/analytical-engines`);
      await expect.poll(() => page.getByTestId("member-count").textContent()).toMatch(/^\d+$/);
      await devSocket;
      await page.evaluate(() => {
        (window as unknown as { loadedOnce: boolean }).loadedOnce = true;
        // A hot update re-renders this element; a remount (state lost) would make a new one.
        (document.querySelector("main h2") as HTMLElement & { kept?: boolean }).kept = true;
      });

      // A component edit: hot module replacement, the component kept.
      edit("app/routes/orgs.$slug._index.tsx", "        Overview\n", "        Overview, edited\n");
      await until("the component edit", () => page.getByRole("heading", { name: "Overview, edited" }).isVisible());
      expect(await samePage(page)).toBe(true);
      expect(await page.evaluate(() => (document.querySelector("main h2") as { kept?: boolean }).kept)).toBe(true);

      // A stylesheet edit: the new sheet replaces the old one in the same document.
      const navHeight = () =>
        page.evaluate(() => getComputedStyle(document.querySelector(".nav-bar")!).getPropertyValue("height"));
      expect(await navHeight()).toBe("64px");
      edit("app/styles/app.css", "  --nav-height: 4rem;\n", "  --nav-height: 5rem;\n");
      await until("the stylesheet edit", async () => (await navHeight()) === "80px");
      expect(await samePage(page)).toBe(true);

      // A loader edit: hot data revalidation runs it again.
      edit(
        "app/routes/orgs.$slug._index.tsx",
        "return { org, latest };",
        "return { org, latest: { ...latest, total: 4242 } };",
      );
      await until("the loader edit", async () => (await page.getByTestId("member-count").textContent()) === "4242");
      expect(await samePage(page)).toBe(true);

      // A loader that throws shows the error and its stack (not the catalogue's 500), until it is fixed.
      edit(
        "app/routes/orgs.$slug._index.tsx",
        "  return { org, latest:",
        '  if (org) throw new Error("An edit gone wrong");\n  return { org, latest:',
      );
      await until("the development error page", () => page.getByTestId("development-error").isVisible());
      await expect
        .poll(() => page.getByTestId("development-error").textContent())
        .toContain("Error: An edit gone wrong");
      edit("app/routes/orgs.$slug._index.tsx", '  if (org) throw new Error("An edit gone wrong");\n', "");
      await until("the page again", async () => (await page.getByTestId("member-count").textContent()) === "4242");

      // A server edit restarts the server; the emulator's state and the browser's session survive it.
      const created = await fetch(`${origin}/orgs/new`, {
        method: "POST",
        headers: {
          Cookie: session.cookies.map((c) => `${c.name}=${c.value}`).join("; "),
          Origin: origin,
          "Content-Type": "application/x-www-form-urlencoded",
        },
        body: "name=Kept+Across+Restarts",
        redirect: "manual",
      });
      expect(created.status).toBe(303);
      const started = /Server started \(pid (\d+)\)/g;
      const pid = [...dev.output().matchAll(started)].at(-1)?.[1];
      edit("server.ts", '.send("ok")', '.send("ok, edited")');
      await until(
        "the restarted server",
        async () => (await (await fetch(`${origin}/healthz`)).text()) === "ok, edited",
      );
      expect([...dev.output().matchAll(started)].at(-1)?.[1]).not.toBe(pid);
      await page.reload();
      await expect.poll(() => page.getByTestId("member-count").textContent()).toBe("4242");
      expect(new URL(page.url()).pathname).toBe("/orgs/analytical-engines");
      await page.goto(`${origin}/orgs`);
      await expect.poll(() => page.getByRole("link", { name: /Kept Across Restarts/ }).count()).toBeGreaterThan(0);

      // An emulator edit restarts the server too: the emulator is bundled into it. (The edit is
      // the copy's, and undone whatever happens, so the steps after run on the emulator as it was.)
      const displayConfig = async () =>
        ((await (await fetch(`${origin}/__clerk/v1/environment`)).json()) as { display_config: { id: string } })
          .display_config.id;
      expect(await displayConfig()).toBe("display_config_local");
      const emulatorFile = "packages/clerk-emulator/src/json/environment.ts";
      const beforeEmulatorEdit = [...output().matchAll(started)].at(-1)?.[1];
      edit(emulatorFile, 'id: "display_config_local"', 'id: "display_config_edited"');
      try {
        await until("the emulator edit", async () => (await displayConfig()) === "display_config_edited");
        expect([...output().matchAll(started)].at(-1)?.[1]).not.toBe(beforeEmulatorEdit);
      } finally {
        edit(emulatorFile, 'id: "display_config_edited"', 'id: "display_config_local"');
      }
      await until("the emulator as it was", async () => (await displayConfig()) === "display_config_local");

      // A restart while the app cannot load stops the server; the app's fix starts it again.
      const guard = "app/lib/orgs/require-org.server.ts";
      const broken = 'throw new Error("A module that cannot load");\n';
      edit(guard, "const isView", `${broken}const isView`);
      await until("the failed reload", async () => output().includes("Could not load the new build"));
      edit("server.ts", '.send("ok, edited")', '.send("ok, edited twice")');
      await until("the server stopping", async () => output().includes("The server stopped"));
      edit(guard, broken, "");
      await until(
        "the server again",
        async () => (await (await fetch(`${origin}/healthz`)).text()) === "ok, edited twice",
      );
    },
  );
});
