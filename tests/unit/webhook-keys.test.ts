import { describe, expect, it } from "vitest";
import { createThrottle, keysTouchedBy } from "~/lib/orgs/org-caches.server";

// Which cached answers each of Clerk's webhook events makes every instance forget.
const ORG = "org_1";
const USER = "user_1";
const membership = { organization: { id: ORG }, public_user_data: { user_id: USER } };

describe("the keys a Clerk webhook event touches", () => {
  it("an organization's rename: its profile (which everyone's lists and invitations name it from) and its pages", () => {
    expect(keysTouchedBy("organization.updated", { id: ORG })).toEqual([
      { cache: "profiles", key: ORG },
      { cache: "latestMembers", key: ORG },
      { cache: "memberPages", prefix: `${ORG}|` },
    ]);
  });

  it("an organization's deletion: also its pending invitations and every kept membership list", () => {
    expect(keysTouchedBy("organization.deleted", { id: ORG })).toEqual([
      { cache: "profiles", key: ORG },
      { cache: "latestMembers", key: ORG },
      { cache: "memberPages", prefix: `${ORG}|` },
      { cache: "pendingInvitations", prefix: `${ORG}|` },
      { cache: "memberships", prefix: "" },
    ]);
  });

  it("a new organization touches nothing kept (its creator's membership event does)", () => {
    expect(keysTouchedBy("organization.created", { id: ORG })).toEqual([]);
  });

  it("a membership: the organization's pages and the person's list; an ended or changed one, their older tokens too", () => {
    const orgPages = [
      { cache: "profiles", key: ORG },
      { cache: "latestMembers", key: ORG },
      { cache: "memberPages", prefix: `${ORG}|` },
    ];
    expect(keysTouchedBy("organizationMembership.created", membership)).toEqual([
      ...orgPages,
      { cache: "memberships", key: USER },
    ]);
    for (const type of ["organizationMembership.updated", "organizationMembership.deleted"]) {
      expect(keysTouchedBy(type, membership)).toEqual([
        ...orgPages,
        { cache: "memberships", key: USER },
        { cache: "membershipChanges", key: USER },
      ]);
    }
  });

  it("an invitation: the organization's pending ones, and the invitee's, found by address", () => {
    for (const action of ["created", "accepted", "revoked"]) {
      expect(
        keysTouchedBy(`organizationInvitation.${action}`, { organization_id: ORG, email_address: "a@example.com" }),
      ).toEqual([{ cache: "pendingInvitations", prefix: `${ORG}|` }, { invitee: "a@example.com" }]);
    }
  });

  it("a person changed: their invitations, and the member lists of their organizations (found by the caller)", () => {
    expect(keysTouchedBy("user.updated", { id: USER })).toEqual([
      { cache: "invitations", key: USER },
      { memberOf: USER },
    ]);
    expect(keysTouchedBy("user.created", { id: USER })).toEqual([]);
  });

  it("a person deleted: their lists, and every member list and count (their memberships may be gone already)", () => {
    expect(keysTouchedBy("user.deleted", { id: USER })).toEqual([
      { cache: "memberships", key: USER },
      { cache: "invitations", key: USER },
      { cache: "latestMembers", prefix: "" },
      { cache: "memberPages", prefix: "" },
      { cache: "profiles", prefix: "" },
    ]);
  });

  it("an event without the ids it should carry forgets the whole cache rather than nothing", () => {
    expect(keysTouchedBy("organizationInvitation.created", {})).toEqual([
      { cache: "pendingInvitations", prefix: "" },
      { cache: "invitations", prefix: "" },
    ]);
  });

  it("events the caches do not depend on are not theirs", () => {
    expect(keysTouchedBy("session.created", { id: "sess_1" })).toBeNull();
    expect(keysTouchedBy("email.created", {})).toBeNull();
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
