import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../../src/hosts/cli";
import { dashboardSettingsJSON, defaultDashboardSettings } from "../../src/domain/dashboard-settings";
import { markFactorVerified } from "../../src/domain/mfa";
import { reverificationNeeded, startSessionVerification } from "../../src/domain/session-verifications";
import { DEFAULT_SETTINGS } from "../../src/settings";
import { Store } from "../../src/state/store";

// `auth_config.reverification`: when the person's sensitive changes wait for a fresh factor
// (domain/session-verifications.ts, `reverificationNeeded`).

const MINUTE = 60_000;

function storeWith(reverification: boolean) {
  const instance = { ...defaultDashboardSettings(), reverification };
  return new Store(null, { ...DEFAULT_SETTINGS, publicUrl: "", instance });
}

/** A session of the seeded Ada, on a new client: its first factor verified when it began. */
function signedIn(store: Store) {
  const session = store.write(() => store.createSession(store.createClient(), "user_seed_ada", 60 * MINUTE));
  return { session, user: store.user("user_seed_ada")! };
}

describe("the reverification switch", () => {
  it("is off by default, read from the settings file at Clerk's environment key, and written back there", () => {
    expect(defaultDashboardSettings().reverification).toBe(false);
    const file = join(mkdtempSync(join(tmpdir(), "clerk-emulator-reverification-")), "instance.json");
    writeFileSync(file, JSON.stringify({ auth_config: { reverification: true } }));
    const parsed = parseCli(["--instance", file], {});
    if (parsed === "help") throw new Error("parsed as --help");
    expect(parsed.instance.reverification).toBe(true);
    expect(dashboardSettingsJSON(parsed.instance)).toMatchObject({ auth_config: { reverification: true } });
  });
});

describe("a sensitive change's need of a reverification", () => {
  it("is never, with the switch off: however old the factor, a reverification started or not", () => {
    const store = storeWith(false);
    const { session, user } = signedIn(store);
    startSessionVerification(store, session, user, "first_factor");
    expect(reverificationNeeded(store, session, user, session.createdAt + 60 * MINUTE)).toBe(false);
  });

  it("is when the first factor is 10 minutes old or more, for someone without a second factor", () => {
    const store = storeWith(true);
    const { session, user } = signedIn(store);
    expect(reverificationNeeded(store, session, user, session.createdAt)).toBe(false);
    expect(reverificationNeeded(store, session, user, session.createdAt + 9 * MINUTE + 59_000)).toBe(false);
    expect(reverificationNeeded(store, session, user, session.createdAt + 10 * MINUTE)).toBe(true);
    // Verified again: fresh from then.
    store.write(() => markFactorVerified(session, "first", session.createdAt + 12 * MINUTE));
    expect(reverificationNeeded(store, session, user, session.createdAt + 13 * MINUTE)).toBe(false);
  });

  it("is while a reverification started on the session is not complete, though the factor is fresh", () => {
    const store = storeWith(true);
    const { session, user } = signedIn(store);
    const verification = startSessionVerification(store, session, user, "first_factor");
    expect(reverificationNeeded(store, session, user, session.createdAt)).toBe(true);
    store.write(() => (verification.status = "complete"));
    expect(reverificationNeeded(store, session, user, session.createdAt)).toBe(false);
  });

  it("counts the second factor's age for someone who has one, and never verified is stale", () => {
    const store = storeWith(true);
    const { session, user } = signedIn(store);
    const t = session.createdAt;
    store.write(() =>
      user.phones.push({
        id: "idn_second_factor_phone",
        phone: "+15555550100",
        verified: true,
        reservedForSecondFactor: true,
        defaultSecondFactor: true,
        createdAt: t,
        updatedAt: t,
      }),
    );
    expect(reverificationNeeded(store, session, user, t)).toBe(true);
    store.write(() => markFactorVerified(session, "second", t));
    expect(reverificationNeeded(store, session, user, t + 5 * MINUTE)).toBe(false);
    expect(reverificationNeeded(store, session, user, t + 10 * MINUTE)).toBe(true);
  });
});
