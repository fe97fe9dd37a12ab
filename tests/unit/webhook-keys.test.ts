import type { MyMembership } from "~/lib/orgs/organizations";
import { describe, expect, it } from "vitest";
import { applyChanges } from "~/lib/cache/apply-changes.server";
import { createOrgCaches, createThrottle, type OrgProfile } from "~/lib/cache/org-caches.server";
import { changesOf, RECENT_MS, type CacheWrite, type Change, type Touched } from "~/lib/cache/webhook-changes.server";

// What each of Clerk's webhook events changes: answers written from its payload, or keys forgotten.
const ORG = "org_1";
const USER = "user_1";
const NOW = 1_800_000_000_000;
const recent = { timestamp: NOW - 100, now: NOW };
const late = { timestamp: NOW - RECENT_MS - 1, now: NOW };

const organization = (fields: Record<string, unknown> = {}) => ({
  object: "organization",
  id: ORG,
  name: "Analytical Engines",
  slug: "analytical-engines",
  image_url: "https://img.example/x.png",
  has_image: false,
  members_count: 3,
  created_at: NOW - 60_000,
  updated_at: NOW - 1_000,
  ...fields,
});
const membership = (fields: Record<string, unknown> = {}) => ({
  object: "organization_membership",
  id: "orgmem_1",
  role: "org:member",
  organization: organization(),
  public_user_data: {
    user_id: USER,
    identifier: "ada@example.com",
    first_name: "Ada",
    last_name: "Lovelace",
    image_url: "https://img.example/ada.png",
    has_image: true,
  },
  created_at: NOW - 500,
  updated_at: NOW - 500,
  ...fields,
});
const memberOf = (role: string) => ({
  userId: USER,
  name: "Ada Lovelace",
  identifier: "ada@example.com",
  imageUrl: "https://img.example/ada.png",
  role,
  joinedAt: NOW - 500,
});
const profile = (fields: Partial<OrgProfile> = {}): OrgProfile => ({
  id: ORG,
  name: "Old name",
  slug: "old",
  imageUrl: null,
  membersCount: 2,
  ...fields,
});

/** The write an event makes to one cache's key, applied to `current`, kept at `keptAt` (before the event, by default). */
function written<Value>(
  changes: Touched[] | null,
  cache: string,
  key: string,
  current: Value | null,
  keptAt: number | null = current === null ? null : NOW - 10_000,
): Value | null {
  const flatten = (list: (Touched | Change)[]): (Touched | Change)[] =>
    list.flatMap((c) => ("unlessEnded" in c ? flatten(c.changes) : [c]));
  const flat = flatten(changes ?? []);
  const write = flat.find((c): c is CacheWrite => "next" in c && c.cache === cache && c.key === key);
  if (!write) throw new Error(`no write to ${cache} ${key}`);
  return (write.next as (v: Value | null, at: number | null) => Value | null)(current, keptAt);
}

describe("the changes a Clerk webhook event makes", () => {
  it("a rename writes the organization's profile from the payload (its count kept when the payload lacks it), and nothing else", () => {
    const changes = changesOf("organization.updated", organization({ members_count: undefined }), recent);
    expect(changes).toHaveLength(1);
    expect(changes?.[0]).toMatchObject({ unlessEnded: { orgId: ORG, userId: "*", since: NOW - 1_000 } });
    expect(written(changes, "profiles", ORG, profile())).toEqual({
      id: ORG,
      name: "Analytical Engines",
      slug: "analytical-engines",
      imageUrl: null,
      membersCount: 2,
      updatedAt: NOW - 1_000,
    });
    // No count anywhere: forgotten rather than shown without one.
    expect(written(changes, "profiles", ORG, null)).toBeNull();
  });

  it("an older rename than the one kept leaves it; a late or partial one forgets the profile", () => {
    const changes = changesOf("organization.updated", organization({ updated_at: NOW - 5_000 }), recent);
    const newer = profile({ name: "Newer", updatedAt: NOW - 2_000 });
    expect(written(changes, "profiles", ORG, newer)).toEqual({ ...newer, membersCount: 3 });
    expect(changesOf("organization.updated", organization(), late)).toEqual([{ cache: "profiles", key: ORG }]);
    expect(changesOf("organization.updated", { id: ORG, name: "X" }, recent)).toEqual([
      { cache: "profiles", key: ORG },
    ]);
  });

  it("an organization's deletion: its own keys, and its members' lists through the index, never every list", () => {
    expect(changesOf("organization.deleted", { id: ORG, deleted: true }, recent)).toEqual([
      { cache: "profiles", key: ORG },
      { cache: "latestMembers", key: ORG },
      { cache: "memberPages", prefix: `${ORG}|` },
      { cache: "pendingInvitations", prefix: `${ORG}|` },
      { organizationGone: ORG, at: NOW - 100 },
    ]);
  });

  it("a new membership is added to the person's kept list, the newest members and the count; the directory is forgotten", () => {
    const changes = changesOf("organizationMembership.created", membership(), recent);
    const kept: MyMembership[] = [{ orgId: "org_2", role: "org:admin" }];
    expect(written(changes, "memberships", USER, kept)).toEqual([
      ...kept,
      { orgId: ORG, role: "org:member", updatedAt: NOW - 500 },
    ]);
    expect(written(changes, "memberships", USER, null)).toBeNull();
    const older = {
      userId: "user_0",
      name: "Old",
      identifier: "o@example.com",
      imageUrl: null,
      role: "org:admin",
      joinedAt: 1,
    };
    expect(written(changes, "latestMembers", ORG, { members: [older], total: 2 })).toEqual({
      members: [
        {
          userId: USER,
          name: "Ada Lovelace",
          identifier: "ada@example.com",
          imageUrl: "https://img.example/ada.png",
          role: "org:member",
          joinedAt: NOW - 500,
          updatedAt: NOW - 500,
        },
        older,
      ],
      total: 3,
    });
    expect(written<OrgProfile>(changes, "profiles", ORG, profile())?.membersCount).toBe(3);
    expect(changes).toContainEqual({
      unlessEnded: { orgId: ORG, userId: USER, since: NOW - 500 },
      changes: expect.arrayContaining([{ cache: "memberPages", prefix: `${ORG}|` }]) as unknown,
    });
  });

  it("an ended or changed membership: removed or its role replaced, and the person's older tokens distrusted", () => {
    const kept: MyMembership[] = [{ orgId: ORG, role: "org:member", updatedAt: NOW - 5_000 }];
    const updated = changesOf("organizationMembership.updated", membership({ role: "org:admin" }), recent);
    expect(written(updated, "memberships", USER, kept)).toEqual([
      { orgId: ORG, role: "org:admin", updatedAt: NOW - 500 },
    ]);
    expect(updated).toContainEqual({ cache: "membershipChanges", key: USER });
    const deleted = changesOf("organizationMembership.deleted", membership(), recent);
    expect(written(deleted, "memberships", USER, kept)).toEqual([]);
    expect(deleted).toContainEqual({ membershipEnded: { orgId: ORG, userId: USER, at: NOW - 500 } });
    // A newer entry (a later membership's, written by its own event) is not undone by an older event.
    const newer: MyMembership[] = [{ orgId: ORG, role: "org:admin", updatedAt: NOW }];
    expect(written(deleted, "memberships", USER, newer)).toEqual(newer);
  });

  it("a promotion delivered after a demotion that was read from Clerk leaves the demotion", () => {
    // Promoted at NOW - 500 (this event, delivered late), demoted at NOW - 200: her list was read since.
    const promotion = changesOf("organizationMembership.updated", membership({ role: "org:admin" }), recent);
    const demoted: MyMembership[] = [{ orgId: ORG, role: "org:member", updatedAt: NOW - 200 }];
    expect(written(promotion, "memberships", USER, demoted)).toEqual(demoted);
    // The same time (a duplicate delivery): the kept entry stands.
    const same: MyMembership[] = [{ orgId: ORG, role: "org:member", updatedAt: NOW - 500 }];
    expect(written(promotion, "memberships", USER, same)).toEqual(same);
    // An entry without Clerk's time (an earlier release's copy): which is newer cannot be told, so the list is read again.
    expect(written(promotion, "memberships", USER, [{ orgId: ORG, role: "org:member" }])).toBeNull();
    // Shown as a member of the directory's newest, newer than the event: left as it is.
    const shown = {
      members: [{ ...memberOf("org:member"), updatedAt: NOW - 200 }],
      total: 3,
    };
    expect(written(promotion, "latestMembers", ORG, shown)).toEqual(shown);
  });

  it("a creation missing from a list read after it is not added back: the list is read again", () => {
    const created = changesOf("organizationMembership.created", membership(), recent);
    const list: MyMembership[] = [{ orgId: "org_2", role: "org:admin", updatedAt: NOW - 9_000 }];
    // Kept after the membership was created (and so after it ended, since the list lacks it).
    expect(written(created, "memberships", USER, list, NOW - 100)).toBeNull();
    // Kept well before: the membership is new since.
    expect(written(created, "memberships", USER, list, NOW - 5_000)).toEqual([
      ...list,
      { orgId: ORG, role: "org:member", updatedAt: NOW - 500 },
    ]);
  });

  it("a membership event that names no person forgets its organization's members' lists only", () => {
    const anonymous = membership({ public_user_data: {} });
    expect(changesOf("organizationMembership.updated", anonymous, recent)).toEqual([
      { cache: "profiles", key: ORG },
      { cache: "latestMembers", key: ORG },
      { cache: "memberPages", prefix: `${ORG}|` },
      { everyMemberOf: ORG },
    ]);
  });

  it("a late or partial membership event forgets what it touches instead of writing", () => {
    expect(changesOf("organizationMembership.updated", membership(), late)).toEqual([
      { cache: "profiles", key: ORG },
      { cache: "latestMembers", key: ORG },
      { cache: "memberPages", prefix: `${ORG}|` },
      { cache: "memberships", key: USER },
      { cache: "membershipChanges", key: USER },
    ]);
  });

  it("an invitation: the organization's pending ones, and the invitee's, found by address", () => {
    for (const action of ["created", "accepted", "revoked"]) {
      expect(
        changesOf(`organizationInvitation.${action}`, { organization_id: ORG, email_address: "a@example.com" }),
      ).toEqual([{ cache: "pendingInvitations", prefix: `${ORG}|` }, { invitee: "a@example.com" }]);
    }
  });

  it("a person changed or deleted: their rows, and only their own organizations' lists", () => {
    expect(changesOf("user.updated", { id: USER })).toEqual([{ cache: "invitations", key: USER }, { memberOf: USER }]);
    expect(changesOf("user.created", { id: USER })).toEqual([]);
    expect(changesOf("user.deleted", { id: USER, deleted: true })).toEqual([
      { cache: "invitations", key: USER },
      { userGone: USER },
    ]);
  });

  it("events the caches do not depend on are not theirs", () => {
    expect(changesOf("session.created", { id: "sess_1" })).toBeNull();
    expect(changesOf("email.created", {})).toBeNull();
  });
});

/** The changes of an event that names no person the caller must look up. */
const asChanges = (touched: Touched[] | null): Change[] =>
  (touched ?? []).filter((t): t is Change => !("invitee" in t) && !("memberOf" in t));

describe("applying them", () => {
  const membershipsOf = (orgIds: string[]): MyMembership[] => orgIds.map((orgId) => ({ orgId, role: "org:member" }));
  const keep = async (caches: ReturnType<typeof createOrgCaches>, userId: string, orgIds: string[]) => {
    await caches.memberships.get(userId, async () => membershipsOf(orgIds));
    // (The index is fed once the store has kept the list.)
    await new Promise((r) => setTimeout(r, 10));
  };
  const keptList = (caches: ReturnType<typeof createOrgCaches>, userId: string) =>
    caches.memberships.get(userId, async () => membershipsOf(["read again"]));

  it("an organization's deletion drops it from its members' kept lists only", async () => {
    const caches = createOrgCaches({ webhooks: true });
    await keep(caches, "user_a", [ORG, "org_2"]);
    await keep(caches, "user_b", ["org_2"]);
    const keys = await applyChanges(caches, asChanges(changesOf("organization.deleted", { id: ORG }, recent)));
    expect(await keptList(caches, "user_a")).toEqual(membershipsOf(["org_2"]));
    expect(await keptList(caches, "user_b")).toEqual(membershipsOf(["org_2"]));
    expect(keys).toContainEqual({ cache: "memberships", key: "user_a" });
    expect(keys).not.toContainEqual({ cache: "memberships", key: "user_b" });
  });

  it("a membership's creation delivered after its end does not bring it back", async () => {
    const caches = createOrgCaches({ webhooks: true });
    await keep(caches, USER, ["org_2"]);
    await applyChanges(caches, asChanges(changesOf("organizationMembership.deleted", membership(), recent)));
    await applyChanges(caches, asChanges(changesOf("organizationMembership.created", membership(), recent)));
    expect(await keptList(caches, USER)).toEqual(membershipsOf(["read again"]));
  });

  it("a rename or a membership delivered after the organization's deletion does not bring it back", async () => {
    const caches = createOrgCaches({ webhooks: true });
    await keep(caches, USER, ["org_2"]);
    await caches.profiles.get(ORG, async () => profile({ updatedAt: NOW - 1_000 }));
    await applyChanges(caches, asChanges(changesOf("organization.deleted", { id: ORG }, recent)));
    await applyChanges(caches, asChanges(changesOf("organization.updated", organization(), recent)));
    expect(await caches.profiles.get(ORG, async () => profile({ name: "read again" }))).toMatchObject({
      name: "read again",
    });
    await applyChanges(caches, asChanges(changesOf("organizationMembership.created", membership(), recent)));
    expect(await keptList(caches, USER)).toEqual(membershipsOf(["read again"]));
  });

  it("a membership event that names no person forgets its members' lists and nobody else's", async () => {
    const caches = createOrgCaches({ webhooks: true });
    await keep(caches, "user_a", [ORG]);
    await keep(caches, "user_b", ["org_2"]);
    const anonymous = membership({ public_user_data: {} });
    const keys = await applyChanges(caches, asChanges(changesOf("organizationMembership.updated", anonymous, recent)));
    expect(keys).toContainEqual({ cache: "memberships", key: "user_a" });
    expect(keys.some((k) => k.cache === "memberships" && ("prefix" in k || k.key === "user_b"))).toBe(false);
    expect(await keptList(caches, "user_a")).toEqual(membershipsOf(["read again"]));
    expect(await keptList(caches, "user_b")).toEqual(membershipsOf(["org_2"]));
  });

  it("a person's deletion forgets their rows and their organizations' lists, nobody else's", async () => {
    const caches = createOrgCaches({ webhooks: true });
    await keep(caches, USER, [ORG]);
    await caches.latestMembers.get("org_2", async () => ({ members: [], total: 1 }));
    const keys = await applyChanges(caches, asChanges(changesOf("user.deleted", { id: USER }, recent)));
    expect(keys).toContainEqual({ cache: "latestMembers", key: ORG });
    expect(keys.some((k) => "prefix" in k && k.prefix === "")).toBe(false);
    expect(await caches.latestMembers.get("org_2", async () => ({ members: [], total: 9 }))).toEqual({
      members: [],
      total: 1,
    });
  });
});

describe("the re-read before a 404", () => {
  it("is allowed once per person per window, whatever they ask for", () => {
    let time = 0;
    const allow = createThrottle({ everyMs: 10_000, maxKeys: 2, now: () => time });
    expect(allow(USER)).toBe(true);
    expect(allow(USER)).toBe(false);
    expect(allow("user_2")).toBe(true);
    time += 10_000;
    expect(allow(USER)).toBe(true);
    // Full of recent keys: the oldest makes room, and answers stay bounded.
    expect(allow("user_3")).toBe(true);
    expect(allow(USER)).toBe(false);
  });
});
