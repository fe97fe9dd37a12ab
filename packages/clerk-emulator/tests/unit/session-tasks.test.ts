import { describe, expect, it } from "vitest";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCli } from "../../src/hosts/cli";
import { dashboardSettingsJSON, defaultDashboardSettings } from "../../src/domain/dashboard-settings";
import { beginInAnOrganization, organizationAsked, sessionStatus, sessionTasks } from "../../src/domain/session-tasks";
import { sessionClaims } from "../../src/domain/tokens";
import { DEFAULT_SETTINGS } from "../../src/settings";
import { Store } from "../../src/state/store";

// Clerk's session tasks (Core 3): `organization_settings.force_organization_selection` makes a session
// without an active organization pending, with the `choose-organization` task (domain/session-tasks.ts).

function forcingStore(force: boolean) {
  const instance = { ...defaultDashboardSettings(), forceOrganizationSelection: force };
  return new Store(null, { ...DEFAULT_SETTINGS, publicUrl: "", instance });
}

/** A session of the seeded person `userId` (Ada is in two organizations), on a new client, no organization active. */
function newSession(store: Store, userId = "user_seed_ada") {
  return store.write(() => store.createSession(store.createClient(), userId, 60_000));
}

describe("the force_organization_selection switch", () => {
  it("is off by default, read from the settings file at Clerk's environment key, and written back there", () => {
    expect(defaultDashboardSettings().forceOrganizationSelection).toBe(false);
    const folder = mkdtempSync(join(tmpdir(), "clerk-emulator-tasks-"));
    const file = join(folder, "instance.json");
    writeFileSync(file, JSON.stringify({ organization_settings: { force_organization_selection: true } }));
    const parsed = parseCli(["--instance", file], {});
    if (parsed === "help") throw new Error("parsed as --help");
    const { instance } = parsed;
    expect(instance.forceOrganizationSelection).toBe(true);
    expect(dashboardSettingsJSON(instance)).toMatchObject({
      organization_settings: { force_organization_selection: true },
    });
    writeFileSync(file, JSON.stringify({ organization_settings: { force_organization_selection: "yes" } }));
    expect(() => parseCli(["--instance", file], {})).toThrow(
      /organization_settings\.force_organization_selection: true or false \(got "yes"\)/,
    );
  });
});

describe("a session's tasks", () => {
  it("are none where personal accounts are allowed, whatever the session's organization", () => {
    const store = forcingStore(false);
    const session = newSession(store);
    expect(sessionTasks(store, session)).toEqual([]);
    expect(sessionStatus(store, session)).toBe("active");
  });

  it("are choose-organization while an instance that forces one has none active, and pending is its status", () => {
    const store = forcingStore(true);
    const session = newSession(store);
    expect(sessionTasks(store, session)).toEqual(["choose-organization"]);
    expect(sessionStatus(store, session)).toBe("pending");
    store.write(() => (session.lastActiveOrganizationId = "org_seed_engines"));
    expect(sessionStatus(store, session)).toBe("active");
    // A session that is over has no task: it keeps its own status.
    store.write(() => store.endSession(session, "ended"));
    store.write(() => (session.lastActiveOrganizationId = null));
    expect([sessionTasks(store, session), sessionStatus(store, session)]).toEqual([[], "ended"]);
  });

  it("are none with organizations turned off for the instance", () => {
    const store = forcingStore(true);
    store.write((state) => (state.instance.organizationSettings.enabled = false));
    expect(sessionTasks(store, newSession(store))).toEqual([]);
  });

  it("a member's new session begins in their newest organization; someone without one keeps the task", () => {
    const store = forcingStore(true);
    const ada = newSession(store);
    store.write(() => beginInAnOrganization(store, ada));
    const newest = store.membershipsOfUser("user_seed_ada").sort((a, b) => b.createdAt - a.createdAt)[0]!;
    expect(ada.lastActiveOrganizationId).toBe(newest.orgId);
    store.write((state) => (state.memberships = state.memberships.filter((m) => m.userId !== "user_seed_grace")));
    const grace = newSession(store, "user_seed_grace");
    store.write(() => beginInAnOrganization(store, grace));
    expect([grace.lastActiveOrganizationId, sessionStatus(store, grace)]).toEqual([null, "pending"]);
  });

  it("are setup-mfa first while an instance that requires multi-factor meets someone without a second factor", () => {
    const instance = { ...defaultDashboardSettings(), forceOrganizationSelection: true, mfaRequired: true };
    const store = new Store(null, { ...DEFAULT_SETTINGS, publicUrl: "", instance });
    const session = newSession(store);
    expect(sessionTasks(store, session)).toEqual(["setup-mfa", "choose-organization"]);
    store.write(() => (session.lastActiveOrganizationId = "org_seed_engines"));
    expect(sessionTasks(store, session)).toEqual(["setup-mfa"]);
    // A phone number reserved for second factors is one.
    const ada = store.user("user_seed_ada")!;
    store.write(() =>
      ada.phones.push({
        id: "idn_p",
        phone: "+15555550100",
        verified: true,
        reservedForSecondFactor: true,
        createdAt: 0,
        updatedAt: 0,
      }),
    );
    expect([sessionTasks(store, session), sessionStatus(store, session)]).toEqual([[], "active"]);
  });

  it("asking for the personal account (null) keeps the organization only where one is forced", () => {
    expect(organizationAsked(forcingStore(true), null)).toBeUndefined();
    expect(organizationAsked(forcingStore(false), null)).toBeNull();
    expect(organizationAsked(forcingStore(true), "org_1")).toBe("org_1");
    expect(organizationAsked(forcingStore(true), undefined)).toBeUndefined();
  });
});

describe("a session token's sts", () => {
  const input = { issuer: "https://i", sessionId: "sess_1", userId: "user_1", name: null, imageUrl: null, org: null };
  it("is pending for a pending session and active otherwise, in version 2 only", () => {
    expect(sessionClaims({ ...input, ttlSeconds: 60, status: "pending" }).sts).toBe("pending");
    expect(sessionClaims({ ...input, ttlSeconds: 60 }).sts).toBe("active");
    expect(sessionClaims({ ...input, ttlSeconds: 60, status: "pending", version: 1 }).sts).toBeUndefined();
  });
});
