import type { Browser, BrowserContext, Page } from "@playwright/test";
import { backendApi, newPerson, newTeam, uniqueEmail } from "../support/emulator-api";
import { expect as fixturesExpect, openGuardedContext, signInAs, test } from "./fixtures";
import { useShortTokenServer } from "./short-token-server";

// Every form of the app, sent after the page's session token expired (tokens
// live 5 s on this server) and Clerk's 5 s of clock skew have passed. With
// JavaScript on, clerk-js is kept away, as when it is slow to load or the
// laptop just woke up: the form reaches the server with the stale token.
// Each flow has a browser of its own (its own cookies), so one wait serves all.
const short = useShortTokenServer();
// After a form, the page's next load goes through Clerk's handshake (two more round trips): give it time on a busy machine.
const expect = fixturesExpect.configure({ timeout: 30_000 });

const api = () => backendApi(short.origin, short.dataDir);

type Flow = {
  name: string;
  /** Signs in and opens the form's page. */
  open(page: Page): Promise<void>;
  /** Fills in and sends the form, as a person would. */
  send(page: Page): Promise<void>;
  /** What the person and Clerk's state show afterwards. */
  check(page: Page): Promise<void>;
};

/** A browser of its own on the short-lived server, the POSTs it sends to Clerk's handshake recorded. */
async function openBrowser(browser: Browser, javaScriptEnabled: boolean) {
  const guarded = await openGuardedContext(browser, { javaScriptEnabled, baseURL: short.origin });
  const handshakePosts: string[] = [];
  guarded.context.on("request", (request) => {
    if (request.method() !== "GET" && request.url().includes("/v1/client/handshake"))
      handshakePosts.push(request.url());
  });
  // clerk-js would refresh the token before the form is sent.
  if (javaScriptEnabled) await guarded.context.route("**/clerk.browser.js", (route) => route.abort());
  return { ...guarded, handshakePosts, page: await guarded.context.newPage() };
}

const tokenExpiry = async (context: BrowserContext) => {
  const token = (await context.cookies()).find((c) => c.name === "__session")?.value ?? "";
  return (JSON.parse(Buffer.from(token.split(".")[1] ?? "", "base64url").toString() || "{}") as { exp?: number }).exp;
};

/** Every browser's session token is past its expiry and Clerk's 5 s of allowed clock skew. */
async function waitPastExpiry(contexts: BrowserContext[]) {
  const latest = Math.max(...(await Promise.all(contexts.map(async (c) => (await tokenExpiry(c)) ?? 0))));
  await expect.poll(() => Date.now() / 1000 > latest + 6, { timeout: 30_000, intervals: [500] }).toBe(true);
}

/** An item of a navigation bar menu: Radix's menu with JavaScript, the `<details>` of buttons without. */
async function chooseFromMenu(
  page: Page,
  javaScriptEnabled: boolean,
  menu: "theme-menu" | "user-menu",
  item: { role: "menuitem" | "menuitemradio"; name: string },
) {
  if (javaScriptEnabled) {
    await page.getByTestId(`${menu}-trigger`).click();
    await page.getByRole(item.role, { name: item.name }).click();
  } else {
    await page.locator(`[data-testid="${menu}-fallback"] summary`).click();
    await page.getByRole("button", { name: item.name }).click();
  }
}

/** An invitation to `email` from the team's admin, made through the Backend API. */
const invite = (team: Awaited<ReturnType<typeof newTeam>>, email: string) =>
  api()("POST", `/v1/organizations/${team.org.id}/invitations`, {
    email_address: email,
    role: "org:member",
    inviter_user_id: team.admin.id,
  });

const pendingInvitations = async (orgId: string, email: string) =>
  (
    (await api()("GET", `/v1/organizations/${orgId}/invitations?status=pending`)).body.data as {
      email_address: string;
    }[]
  ).filter((i) => i.email_address === email).length;

const sessionStatus = async (sessionId: string) =>
  (await api()("GET", `/v1/sessions/${sessionId}`)).body.status as string;

/** An admin of a new organization, on its members page. */
async function adminOnMembers(page: Page) {
  const team = await newTeam(api());
  const { sessionId } = await signInAs(page.context(), short.origin, team.admin.email);
  await page.goto(`/orgs/${team.org.slug}/members`);
  await expect(page.getByRole("form", { name: "Invite someone" })).toBeVisible();
  return { ...team, sessionId };
}

function inviteFlow(): Flow {
  const email = uniqueEmail("stale-invitee");
  let team: Awaited<ReturnType<typeof adminOnMembers>>;
  return {
    name: "invite",
    async open(page) {
      team = await adminOnMembers(page);
    },
    async send(page) {
      const form = page.getByRole("form", { name: "Invite someone" });
      await form.getByLabel("Email address").fill(email);
      await form.getByLabel("Role").selectOption({ label: "Admin" });
      await form.getByRole("button", { name: "Send invitation" }).click();
    },
    async check(page) {
      await expect(page.getByTestId("pending-invitation").filter({ hasText: email })).toBeVisible();
      expect(await pendingInvitations(team.org.id, email)).toBe(1);
    },
  };
}

function revokeFlow(): Flow {
  const email = uniqueEmail("stale-revoked");
  let team: Awaited<ReturnType<typeof newTeam>>;
  return {
    name: "revoke an invitation",
    async open(page) {
      const made = await newTeam(api());
      await invite(made, email);
      await signInAs(page.context(), short.origin, made.admin.email);
      await page.goto(`/orgs/${made.org.slug}/members`);
      team = made;
    },
    async send(page) {
      await page.getByRole("button", { name: `Revoke the invitation to ${email}` }).click();
    },
    async check(page) {
      await expect(page.getByTestId("pending-invitation")).toHaveCount(0);
      expect(await pendingInvitations(team.org.id, email)).toBe(0);
    },
  };
}

function createOrganizationFlow(): Flow {
  const name = `Stale ${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
  let userId = "";
  return {
    name: "create an organization",
    async open(page) {
      const person = await newPerson(api(), "creator");
      userId = person.id;
      await signInAs(page.context(), short.origin, person.email);
      await page.goto("/orgs/new");
    },
    async send(page) {
      await page.getByLabel("Name").fill(name);
      await page.getByRole("button", { name: "Create organization" }).click();
    },
    async check(page) {
      await expect(page.getByTestId("org-name")).toHaveText(name);
      const memberships = await api()("GET", `/v1/users/${userId}/organization_memberships`);
      const names = (memberships.body.data as { organization: { name: string } }[]).map((m) => m.organization.name);
      expect(names).toEqual([name]);
    },
  };
}

function acceptInvitationFlow(): Flow {
  let team: Awaited<ReturnType<typeof newTeam>>;
  let person: Awaited<ReturnType<typeof newPerson>>;
  return {
    name: "accept an invitation",
    async open(page) {
      team = await newTeam(api());
      person = await newPerson(api(), "stale-acceptor");
      await invite(team, person.email);
      await signInAs(page.context(), short.origin, person.email);
      await page.goto("/orgs");
    },
    async send(page) {
      await page.getByRole("button", { name: `Accept the invitation to ${team.org.name}` }).click();
    },
    async check(page) {
      await expect(page).toHaveURL(new RegExp(`/orgs/${team.org.slug}$`));
      await expect(page.getByTestId("org-role")).toHaveText("Member");
      const memberships = await api()("GET", `/v1/users/${person.id}/organization_memberships`);
      expect(memberships.body.data).toHaveLength(1);
    },
  };
}

function themeFlow(javaScriptEnabled: boolean): Flow {
  return {
    name: "theme menu",
    async open(page) {
      await signInAs(page.context(), short.origin, (await newPerson(api(), "themer")).email);
      await page.goto("/orgs");
    },
    async send(page) {
      if (javaScriptEnabled) {
        await page.evaluate(() => ((window as unknown as { __beforeTheme: boolean }).__beforeTheme = true));
      }
      await chooseFromMenu(page, javaScriptEnabled, "theme-menu", { role: "menuitemradio", name: "Dark" });
    },
    async check(page) {
      if (javaScriptEnabled) {
        // The page's data, read again after the change with the stale token, comes through a
        // document load (and so Clerk's handshake): wait for it before reloading.
        const reloaded = () =>
          page.evaluate(() => !(window as unknown as { __beforeTheme?: boolean }).__beforeTheme).catch(() => false);
        await expect.poll(reloaded).toBe(true);
      }
      await expect(page).toHaveURL(/\/orgs$/);
      await expect(page.locator("html")).toHaveClass("dark");
      await page.reload();
      await expect(page.locator("html")).toHaveClass("dark");
    },
  };
}

function signOutFlow(javaScriptEnabled: boolean): Flow {
  let sessionId = "";
  return {
    name: "sign out",
    async open(page) {
      const person = await newPerson(api(), "leaver");
      sessionId = (await signInAs(page.context(), short.origin, person.email)).sessionId;
      await page.goto("/orgs");
    },
    async send(page) {
      await chooseFromMenu(page, javaScriptEnabled, "user-menu", { role: "menuitem", name: "Sign out" });
    },
    async check(page) {
      await expect(page).toHaveURL(`${short.origin}/`);
      await expect(page.getByRole("link", { name: "Sign in" }).first()).toBeVisible();
      expect(["revoked", "ended"]).toContain(await sessionStatus(sessionId));
      await page.goto("/orgs");
      await expect(page).toHaveURL(/\/sign-in\?redirect_url=%2Forgs/);
    },
  };
}

test("every form sent after the session token expired does its work once, and sign-out ends the session", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(240_000);
  const flows = [
    inviteFlow(),
    revokeFlow(),
    createOrganizationFlow(),
    acceptInvitationFlow(),
    themeFlow(javaScriptEnabled),
    signOutFlow(javaScriptEnabled),
  ];
  const browsers = await Promise.all(flows.map(() => openBrowser(browser, javaScriptEnabled)));
  try {
    await test.step("open every form", () => Promise.all(flows.map((flow, i) => flow.open(browsers[i]!.page))));

    await waitPastExpiry(browsers.map((b) => b.context));
    for (const [i, flow] of flows.entries()) {
      const { page } = browsers[i]!;

      await test.step(`send and check: ${flow.name}`, async () => {
        await flow.send(page);
        await flow.check(page);
      });
    }
    expect(browsers.flatMap((b) => b.handshakePosts)).toEqual([]);
  } finally {
    for (const b of browsers) await b.close();
  }
});

test("a form sent after the session was revoked writes nothing and leads to sign-in, with the way back", async ({
  browser,
  javaScriptEnabled,
}) => {
  test.setTimeout(90_000);
  const { page, context, close, handshakePosts } = await openBrowser(browser, javaScriptEnabled);
  try {
    const team = await adminOnMembers(page);
    expect((await api()("POST", `/v1/sessions/${team.sessionId}/revoke`)).status).toBe(200);
    await waitPastExpiry([context]);
    const email = uniqueEmail("never-invited");
    const form = page.getByRole("form", { name: "Invite someone" });
    await form.getByLabel("Email address").fill(email);
    await form.getByRole("button", { name: "Send invitation" }).click();
    await expect(page).toHaveURL(
      new RegExp(`/sign-in\\?redirect_url=${encodeURIComponent(`/orgs/${team.org.slug}/members`)}`),
    );
    expect(await pendingInvitations(team.org.id, email)).toBe(0);
    expect(handshakePosts).toEqual([]);
  } finally {
    await close();
  }
});
