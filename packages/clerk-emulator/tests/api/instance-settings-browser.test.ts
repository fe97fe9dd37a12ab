import type { Page } from "@playwright/test";
import { describe, expect, it } from "vitest";
import { DEFAULT_SETTINGS, DEMO_PASSWORD } from "../../src";
import { patchInstance, uniqueEmail } from "../../testing";
import { browserAppForTests, loadClerkJs } from "../support/browser-app";

// The instance's switches as the real clerk-js (5 from this app's packages, 6 from the Core 3 fixture's)
// in Chromium meets them. Multi-session (`auth_config.single_session_mode: false`): two accounts signed
// in at once, `setActive` switching between them (and the switch kept: a reload comes back to it), and
// signing out of one session and then of all. Sign-up: clerk-js's `legalAccepted` reaching the user's
// `legal_accepted_at`, and the restricted and waitlist modes' refusals and `joinWaitlist` (an address with an account too).
const app = browserAppForTests({ emulator: { instance: { ...DEFAULT_SETTINGS.instance, singleSessionMode: false } } });

type ClerkJs = {
  version: string;
  load(): Promise<void>;
  setActive(params: { session: string | null }): Promise<void>;
  signOut(options?: { sessionId?: string }): Promise<void>;
  client: {
    sessions: { id: string; status: string }[];
    lastActiveSessionId: string | null;
    signIn: { create(params: Record<string, string>): Promise<{ createdSessionId: string }> };
    signUp: { create(params: Record<string, unknown>): Promise<ClerkSignUp> };
  };
  joinWaitlist(params: { emailAddress: string }): Promise<{ id: string }>;
  session: { id: string; user: { primaryEmailAddress: { emailAddress: string } | null } } | null;
};
type ClerkSignUp = {
  status: string;
  missingFields: string[];
  createdUserId: string | null;
  legalAcceptedAt: number | null;
  update(params: Record<string, unknown>): Promise<ClerkSignUp>;
  prepareEmailAddressVerification(params: { strategy: string }): Promise<ClerkSignUp>;
  attemptEmailAddressVerification(params: { code: string }): Promise<ClerkSignUp>;
};
type ClerkWindow = { Clerk?: ClerkJs };

/** What clerk-js holds: its sessions, the active one and whose it is. */
const clerkState = (page: Page) =>
  page.evaluate(() => {
    const Clerk = (window as unknown as ClerkWindow).Clerk!;
    return {
      sessions: Clerk.client.sessions.map((s) => s.id),
      active: Clerk.session?.id ?? null,
      email: Clerk.session?.user.primaryEmailAddress?.emailAddress ?? null,
    };
  });

async function setInstance(json: unknown) {
  expect((await patchInstance(app.origin, json)).status).toBe(200);
}

describe.each(["5", "6"])("clerk-js %s in Chromium, multi-session", (major) => {
  it("signs two accounts in at once, switches between them, signs out of one and then of all", async () => {
    await app.onClerkPage(`/${major}`, async (page) => {
      const ids = await page.evaluate(async (password) => {
        const Clerk = (window as unknown as ClerkWindow).Clerk!;
        const ada = await Clerk.client.signIn.create({ identifier: "ada@example.com", password });
        await Clerk.setActive({ session: ada.createdSessionId });
        // On a single-session instance this second sign-in is refused (session_exists).
        const grace = await Clerk.client.signIn.create({ identifier: "grace@example.com", password });
        await Clerk.setActive({ session: grace.createdSessionId });
        // Ada again: refused, naming her session, which clerk-js's <SignIn/> then activates (meta.sessionId).
        const again = await Clerk.client.signIn.create({ identifier: "ada@example.com" }).then(
          () => null,
          (e: { errors?: { code: string; meta?: { sessionId?: string } }[] }) => e.errors?.[0],
        );
        return {
          ada: ada.createdSessionId,
          grace: grace.createdSessionId,
          again: { code: again?.code, sessionId: again?.meta?.sessionId },
          version: Clerk.version,
        };
      }, DEMO_PASSWORD);
      expect(ids.version).toMatch(new RegExp(`^${major}\\.`));
      expect(ids.again).toEqual({ code: "identifier_already_signed_in", sessionId: ids.ada });
      expect(await clerkState(page)).toEqual({
        sessions: [ids.ada, ids.grace],
        active: ids.grace,
        email: "grace@example.com",
      });

      // setActive touches the session: the emulator keeps it as the last active one, so a reload comes back to Ada.
      await page.evaluate((ada) => (window as unknown as ClerkWindow).Clerk!.setActive({ session: ada }), ids.ada);
      await page.reload();
      await loadClerkJs(page);
      expect(await clerkState(page)).toEqual({
        sessions: [ids.ada, ids.grace],
        active: ids.ada,
        email: "ada@example.com",
      });

      // Signing out of Grace's session (not the active one) leaves Ada's.
      await page.evaluate(
        (grace) => (window as unknown as ClerkWindow).Clerk!.signOut({ sessionId: grace }),
        ids.grace,
      );
      await page.reload();
      await loadClerkJs(page);
      expect(await clerkState(page)).toEqual({ sessions: [ids.ada], active: ids.ada, email: "ada@example.com" });

      // And of everything: clerk-js then leaves the page for the instance's after-sign-out URL.
      const grace = await page.evaluate(async (password) => {
        const Clerk = (window as unknown as ClerkWindow).Clerk!;
        const signIn = await Clerk.client.signIn.create({ identifier: "grace@example.com", password });
        await Clerk.setActive({ session: signIn.createdSessionId });
        return signIn.createdSessionId;
      }, DEMO_PASSWORD);
      // Waited for, or it would interrupt the next page.goto.
      const leaving = page.waitForURL((url) => url.pathname === "/");
      await page.evaluate(() => void (window as unknown as ClerkWindow).Clerk!.signOut());
      await leaving;
      const status = (id: string) => app.emulator.store.session(id)?.status;
      await expect.poll(() => [status(ids.ada), status(grace)]).toEqual(["removed", "removed"]);
      await page.goto(`${app.origin}/${major}`);
      await loadClerkJs(page);
      expect(await clerkState(page)).toEqual({ sessions: [], active: null, email: null });
      expect(status(ids.grace)).toMatch(/^(removed|ended)$/);
    });
  });
});

describe.each(["5", "6"])("clerk-js %s in Chromium, sign-up switches", (major) => {
  it("legal consent: a sign-up without legalAccepted is missing it, and with it the user has legal_accepted_at", async () => {
    await setInstance({ user_settings: { sign_up: { mode: "public", legal_consent_enabled: true } } });
    const [first, second] = [uniqueEmail(`legal-${major}`), uniqueEmail(`legal-later-${major}`)];
    const result = await app.onClerkPage(`/${major}`, (page) =>
      page.evaluate(
        async ({ first, second }) => {
          const Clerk = (window as unknown as ClerkWindow).Clerk!;
          const signUpWith = async (email: string, fields: Record<string, unknown>) => {
            const created = await Clerk.client.signUp.create({
              emailAddress: email,
              password: "a-good-password-1",
              ...fields,
            });
            await created.prepareEmailAddressVerification({ strategy: "email_code" });
            return created.attemptEmailAddressVerification({ code: "424242" });
          };
          const accepted = await signUpWith(first, { legalAccepted: true });
          const missing = await signUpWith(second, {});
          // clerk-js's resources change in place: what the sign-up said before it was updated.
          const before = {
            status: missing.status,
            missingFields: [...missing.missingFields],
            userId: missing.createdUserId,
          };
          const later = await missing.update({ legalAccepted: true });
          return {
            accepted: { status: accepted.status, userId: accepted.createdUserId },
            missing: before,
            later: { status: later.status, userId: later.createdUserId },
          };
        },
        { first, second },
      ),
    );
    expect(result.accepted.status).toBe("complete");
    expect(result.missing).toEqual({ status: "missing_requirements", missingFields: ["legal_accepted"], userId: null });
    expect(result.later.status).toBe("complete");
    for (const userId of [result.accepted.userId, result.later.userId]) {
      expect(app.emulator.store.user(userId!)?.legalAcceptedAt).toEqual(expect.any(Number));
    }
  });

  it("restricted and waitlist modes: clerk-js gets Clerk's error codes; joinWaitlist adds an entry", async () => {
    const tryToSignUp = (page: Page, email: string) =>
      page.evaluate(
        (email) =>
          (window as unknown as ClerkWindow)
            .Clerk!.client.signUp.create({ emailAddress: email, password: "a-good-password-1" })
            .then(
              () => "signed up",
              (e: { errors?: { code: string }[] }) => e.errors?.[0]?.code,
            ),
        email,
      );
    await setInstance({ user_settings: { sign_up: { mode: "restricted", legal_consent_enabled: false } } });
    expect(await app.onClerkPage(`/${major}`, (page) => tryToSignUp(page, uniqueEmail("restricted")))).toBe(
      "sign_up_mode_restricted",
    );

    await setInstance({ user_settings: { sign_up: { mode: "waitlist" } } });
    const waiting = uniqueEmail(`waiting-${major}`);
    const { refused, entry, member } = await app.onClerkPage(`/${major}`, async (page) => ({
      refused: await tryToSignUp(page, waiting),
      entry: await page.evaluate(
        (email) => (window as unknown as ClerkWindow).Clerk!.joinWaitlist({ emailAddress: email }),
        waiting,
      ),
      // An address with an account joins too, as on Clerk (its waitlist-mode spec joins with a user's).
      member: await page.evaluate(() =>
        (window as unknown as ClerkWindow).Clerk!.joinWaitlist({ emailAddress: "ada@example.com" }).then(
          () => "joined",
          (e: { errors?: { code: string }[] }) => e.errors?.[0]?.code,
        ),
      ),
    }));
    expect(refused).toBe("sign_up_restricted_waitlist");
    expect(member).toBe("joined");
    expect(app.emulator.store.state.waitlistEntries.find((e) => e.email === waiting)).toMatchObject({
      status: "pending",
    });
    // clerk-js 5 read the entry from the envelope's `response` and so has no id; 6 has it.
    if (major === "6") expect(entry.id).toMatch(/^wle_/);
  });
});
