import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import {
  startWebhookSink,
  type WebhookSink,
  errorCode,
  frontendClient,
  startInProcessEmulator,
  uniqueEmail,
  type InProcessEmulator,
  OPEN_REDIRECT_PAYLOADS,
  newWebhookSecret,
} from "../../testing";
import { DEMO_PASSWORD } from "../../src";
import { webhookBreaches } from "../../contract";

// Issue 49: sign-in, sign-up and address verification by emailed link
// (strategy `email_link`), driven through the Frontend API as clerk-js's email
// link flows drive it (prepare with a redirect_url, then poll the resource),
// the link read from the `email.created` webhook as an app's tests would, and
// opened at its landing, `GET /v1/verify`.
const SECRET = newWebhookSecret();
type Received = { type: string; data: Record<string, any>; body: Record<string, unknown> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
const received: Received[] = [];
let sink: WebhookSink;
let emu: InProcessEmulator;
/** The app's page the links land on: an allowed origin, as the instance's sign-in page would be. */
const APP = "http://app.example";

beforeAll(async () => {
  sink = await startWebhookSink(SECRET, (e) => received.push(e));
  emu = await startInProcessEmulator({
    webhooks: { url: sink.url, secret: SECRET },
    allowedOrigins: [APP],
    emailLinkVerification: true,
  });
});

afterAll(async () => {
  await emu?.close();
  await sink?.close();
});

afterEach(() => {
  expect(received.flatMap((e) => webhookBreaches(e.body as { type: string }))).toEqual([]);
});

/** The link in the newest `email.created` to `address` with `slug`, once it has arrived. */
async function emailedLink(address: string, slug: string): Promise<string> {
  const find = () =>
    received.filter((e) => e.type === "email.created" && e.data.to_email_address === address && e.data.slug === slug);
  await expect.poll(() => find().length, { timeout: 10_000 }).toBeGreaterThan(0);
  const mail = find().at(-1)!;
  const link = mail.data.data.magic_link as string;
  expect(mail.data.body_plain).toContain(link);
  return link;
}

/** Opens a link as a browser with no cookies would (another device), without following its redirect. */
const openLink = (link: string) => fetch(link, { redirect: "manual" });

/** The path of a Frontend API URL, for `frontendClient` (which adds the mount itself). */
const fapiPath = (url: string) => url.slice(`${emu.origin}/__clerk`.length);

async function newUser(password = "a-good-password") {
  const email = uniqueEmail("linker");
  const user = await emu.bapi("POST", "/v1/users", { email_address: [email], password });
  expect(user.status).toBe(200);
  return { id: user.body.id as string, email };
}

describe("the environment", () => {
  it("offers email links for sign-in, and for verifying addresses when the instance does", async () => {
    const env = (await frontendClient(emu.origin)("GET", "/v1/environment")).body;
    expect(env.auth_config.first_factors).toContain("email_link");
    expect(env.user_settings.attributes.email_address.first_factors).toContain("email_link");
    expect(env.user_settings.attributes.email_address.verifications).toEqual(["email_code", "email_link"]);
  });

  it("an instance that verifies addresses by code only says so, and refuses a link for it", async () => {
    const plain = await startInProcessEmulator();
    try {
      const browser = frontendClient(plain.origin);
      const env = (await browser("GET", "/v1/environment")).body;
      expect(env.user_settings.attributes.email_address.verifications).toEqual(["email_code"]);
      expect(env.auth_config.first_factors).toContain("email_link");
      const signUp = await browser("POST", "/v1/client/sign_ups", {
        email_address: uniqueEmail("coded"),
        password: "a-good-password",
      });
      const prepared = await browser("POST", `/v1/client/sign_ups/${signUp.body.response.id}/prepare_verification`, {
        strategy: "email_link",
      });
      expect(prepared.status).toBe(422);
      expect(prepared.body.errors[0].meta.param_name).toBe("strategy");
    } finally {
      await plain.close();
    }
  });
});

describe("signing in with an email link", () => {
  it("the link from email.created, opened in another browser, completes the sign-in the first browser polls", async () => {
    const { id: userId, email } = await newUser();
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ins", { identifier: email });
    const signIn = created.body.response;
    const factor = signIn.supported_first_factors.find((f: { strategy: string }) => f.strategy === "email_link");
    expect(factor).toMatchObject({ safe_identifier: email, primary: true });

    // clerk-js's startEmailLinkFlow: prepare, then reload until verified or expired.
    const prepared = await browser("POST", `/v1/client/sign_ins/${signIn.id}/prepare_first_factor`, {
      strategy: "email_link",
      email_address_id: factor.email_address_id,
      redirect_url: `${APP}/sign-in/verify`,
    });
    expect(prepared.status).toBe(200);
    expect(prepared.body.response.first_factor_verification).toMatchObject({
      object: "verification_email_link",
      strategy: "email_link",
      status: "unverified",
    });
    const link = await emailedLink(email, "magic_link_sign_in");
    expect(link).toMatch(new RegExp(`^${emu.origin}/__clerk/v1/verify\\?token=`));
    const mail = received.filter((e) => e.type === "email.created").at(-1)!;
    expect(mail.data).toMatchObject({ user_id: userId, email_address_id: factor.email_address_id });
    expect((await browser("GET", `/v1/client/sign_ins/${signIn.id}`)).body.response.status).toBe("needs_first_factor");

    const opened = await openLink(link);
    expect(opened.status).toBe(303);
    const landing = new URL(opened.headers.get("location")!);
    expect(landing.origin + landing.pathname).toBe(`${APP}/sign-in/verify`);
    expect(landing.searchParams.get("__clerk_status")).toBe("verified");
    const sessionId = landing.searchParams.get("__clerk_created_session");

    const polled = (await browser("GET", `/v1/client/sign_ins/${signIn.id}`)).body;
    expect(polled.response).toMatchObject({ status: "complete", created_session_id: sessionId });
    expect(polled.response.first_factor_verification.status).toBe("verified");
    expect(polled.client.sessions.map((s: { id: string; user: { id: string } }) => [s.id, s.user.id])).toEqual([
      [sessionId, userId],
    ]);
    // The Backend API sees the session too.
    expect((await emu.bapi("GET", `/v1/sessions/${sessionId}`)).body).toMatchObject({
      user_id: userId,
      status: "active",
    });
  });

  it("strategy email_link on creation sends the link at once; opened in the same browser, that browser is signed in", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    const created = await browser("POST", "/v1/client/sign_ins", {
      identifier: email,
      strategy: "email_link",
      redirect_url: `${APP}/done`,
    });
    expect(created.body.response.first_factor_verification.strategy).toBe("email_link");
    const link = await emailedLink(email, "magic_link_sign_in");
    const opened = await browser("GET", fapiPath(link));
    expect(opened.status).toBe(303);
    const landing = new URL(opened.headers.get("location")!);
    const client = (await browser("GET", "/v1/client")).body.response;
    expect(client.sessions.map((s: { id: string }) => s.id)).toEqual([
      landing.searchParams.get("__clerk_created_session"),
    ]);
  });

  it("a link works once: opened again it says failed and makes no second session", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_link", redirect_url: APP });
    const link = await emailedLink(email, "magic_link_sign_in");
    expect(new URL((await openLink(link)).headers.get("location")!).searchParams.get("__clerk_status")).toBe(
      "verified",
    );
    const again = await openLink(link);
    expect(new URL(again.headers.get("location")!).searchParams.get("__clerk_status")).toBe("failed");
    expect((await browser("GET", "/v1/client")).body.response.sessions).toHaveLength(1);
  });

  it("a link for a sign-in the browser has since replaced does not sign anyone in", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_link", redirect_url: APP });
    const link = await emailedLink(email, "magic_link_sign_in");
    await browser("POST", "/v1/client/sign_ins", { identifier: email });
    const opened = await openLink(link);
    expect(new URL(opened.headers.get("location")!).searchParams.get("__clerk_status")).toBe("failed");
    expect((await browser("GET", "/v1/client")).body.response.sessions).toEqual([]);
  });

  it("without a redirect_url the link shows the Frontend API's own page", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_link" });
    const opened = await openLink(await emailedLink(email, "magic_link_sign_in"));
    expect(opened.status).toBe(200);
    expect(opened.headers.get("content-type")).toMatch(/^text\/html/);
    expect(await opened.text()).toContain('data-clerk-status="verified"');
  });

  it("an unknown or missing token is Clerk's 400", async () => {
    const browser = frontendClient(emu.origin);
    expect((await browser("GET", "/v1/verify?token=elt_nothing")).status).toBe(400);
    const missing = await browser("GET", "/v1/verify");
    expect([missing.status, errorCode(missing)]).toEqual([400, "form_param_missing"]);
  });

  it("a redirect_url off the allowed origins is refused before any email is sent", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    const signIn = (await browser("POST", "/v1/client/sign_ins", { identifier: email })).body.response;
    const sent = received.length;
    for (const payload of OPEN_REDIRECT_PAYLOADS) {
      const r = await browser("POST", `/v1/client/sign_ins/${signIn.id}/prepare_first_factor`, {
        strategy: "email_link",
        redirect_url: payload,
      });
      expect([r.status, payload]).toEqual([400, payload]);
      expect(r.body.errors[0].meta.param_name).toBe("redirect_url");
    }
    // Nothing was emailed for any of them (a password sign-in after makes a webhook to wait for).
    await browser("POST", `/v1/client/sign_ins/${signIn.id}/attempt_first_factor`, {
      strategy: "password",
      password: "a-good-password",
    });
    await expect.poll(() => received.slice(sent).some((e) => e.type === "session.created")).toBe(true);
    expect(received.slice(sent).filter((e) => e.type === "email.created")).toEqual([]);
  });
});

describe("verifying an address by email link", () => {
  it("a sign-up's link completes the sign-up, and the first browser's poll sees the new user and session", async () => {
    const email = uniqueEmail("newcomer");
    const browser = frontendClient(emu.origin);
    const signUp = (await browser("POST", "/v1/client/sign_ups", { email_address: email, password: "a-good-password" }))
      .body.response;
    const prepared = await browser("POST", `/v1/client/sign_ups/${signUp.id}/prepare_verification`, {
      strategy: "email_link",
      redirect_url: `${APP}/sign-up/verify`,
    });
    expect(prepared.body.response.verifications.email_address).toMatchObject({
      strategy: "email_link",
      status: "unverified",
      supported_strategies: ["email_code", "email_link"],
    });
    const opened = await openLink(await emailedLink(email, "magic_link_sign_up"));
    const landing = new URL(opened.headers.get("location")!);
    expect(landing.searchParams.get("__clerk_status")).toBe("verified");
    const polled = (await browser("GET", `/v1/client/sign_ups/${signUp.id}`)).body.response;
    expect(polled).toMatchObject({
      status: "complete",
      created_session_id: landing.searchParams.get("__clerk_created_session"),
    });
    expect(polled.verifications.email_address.status).toBe("verified");
    const user = await emu.bapi("GET", `/v1/users/${polled.created_user_id}`);
    expect(user.body.email_addresses[0].email_address).toBe(email);
  });

  it("an address added to a profile is verified by its link", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    await browser("POST", "/v1/client/sign_ins", { identifier: email, password: "a-good-password" });
    const second = uniqueEmail("second");
    const added = (await browser("POST", "/v1/me/email_addresses", { email_address: second })).body.response;
    await browser("POST", `/v1/me/email_addresses/${added.id}/prepare_verification`, {
      strategy: "email_link",
      redirect_url: `${APP}/user`,
    });
    const opened = await openLink(await emailedLink(second, "magic_link_user_profile"));
    expect(new URL(opened.headers.get("location")!).searchParams.get("__clerk_status")).toBe("verified");
    const reloaded = (await browser("GET", `/v1/me/email_addresses/${added.id}`)).body.response;
    expect(reloaded.verification.status).toBe("verified");
  });
});

describe("a link nobody opens in time", () => {
  it("reads expired in the poll, and opening it late lands with __clerk_status=expired", async () => {
    const { email } = await newUser();
    const browser = frontendClient(emu.origin);
    const signIn = (
      await browser("POST", "/v1/client/sign_ins", { identifier: email, strategy: "email_link", redirect_url: APP })
    ).body.response;
    const link = await emailedLink(email, "magic_link_sign_in");
    // The emulator's clock is the machine's: age the link in the emulator's state instead of waiting ten minutes.
    emu.emulator.store.write((state) => {
      for (const record of state.emailLinks) if (link.endsWith(record.token)) record.expiresAt = Date.now() - 1;
    });
    const polled = (await browser("GET", `/v1/client/sign_ins/${signIn.id}`)).body.response;
    expect(polled.first_factor_verification.status).toBe("expired");
    const opened = await openLink(link);
    expect(new URL(opened.headers.get("location")!).searchParams.get("__clerk_status")).toBe("expired");
    expect((await browser("GET", "/v1/client")).body.response.sessions).toEqual([]);
  });
});

it("the seeded person can still sign in with a password (email links change nothing else)", async () => {
  const browser = frontendClient(emu.origin);
  const r = await browser("POST", "/v1/client/sign_ins", { identifier: "ada@example.com", password: DEMO_PASSWORD });
  expect(r.body.response.status).toBe("complete");
});
