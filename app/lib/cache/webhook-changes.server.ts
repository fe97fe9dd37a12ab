import { WHOLE_ORGANIZATION } from "./membership-index.server";
import { orgPrefix } from "./keys";
import { LATEST_MEMBERS, type Member, type OrgRole, type MyMembership } from "../orgs/organizations";
import type { CacheKey, LatestMembers, OrgProfile } from "./org-caches.server";

/**
 * What a Clerk webhook event changes in the kept answers. Where its payload
 * carries the new answer (an organization's name; a membership, with the
 * person's public data and the organization's member count), the answer is
 * written from it: a rename or a new member costs Clerk nothing. Where it
 * does not, only what it touches is forgotten, never a whole cache: an
 * organization's deletion reaches its members' lists through the membership
 * index, a person's deletion their own organizations' lists.
 *
 * Svix may deliver late (a retry after a failure), twice, or out of order.
 * So every kept copy carries Clerk's `updated_at` (memberships and
 * profiles, whether read from Clerk or written from an event), and a payload
 * is written only when its event is recent (RECENT_MS: before Svix's first
 * retry) and newer than what is kept. A membership missing from a kept list
 * is added only by an event newer than the list's read; a deletion leaves a
 * tombstone with its time (the membership index: a membership's end, or the
 * organization's), so that a late creation or rename does not bring it
 * back. Where a version cannot be told (a copy an earlier release kept), or
 * the event is late, the keys are forgotten: a read from Clerk for the next
 * view, never an older answer kept (docs/decisions/0011-versioned-copies.md).
 */

/** How old an event may be (Clerk's `timestamp`, ms) and still be written from: Svix retries after 5 s. */
export const RECENT_MS = 5_000;

/**
 * How far Clerk's clock may be ahead of this server's: a list read from
 * Clerk and kept at `keptAt` (this server's clock) shows every membership
 * Clerk changed more than this before it.
 */
export const CLOCK_SKEW_MS = 1_000;

/** The caches an event can write to, and their values. */
type Values = { memberships: MyMembership[]; profiles: OrgProfile; latestMembers: LatestMembers };
type Writable = keyof Values;

/**
 * Replaces a kept answer by `next(current, keptAt)` (`keptAt`: when the
 * store kept it, this server's clock; null with no answer); null forgets it
 * (see SharedCache.update).
 */
export type CacheWrite = {
  [C in Writable]: {
    cache: C;
    key: string;
    next: (current: Values[C] | null, keptAt: number | null) => Values[C] | null;
  };
}[Writable];

/**
 * A change an event makes: a key forgotten or written, or one the caller
 * finds (an organization's members' lists, a deleted person's rows, an
 * ended membership remembered, a membership's creation checked against it).
 */
export type Change =
  | CacheKey
  | CacheWrite
  | { organizationGone: string; at: number }
  | { everyMemberOf: string }
  | { sessionGone: string }
  | { userGone: string }
  | { membershipEnded: { orgId: string; userId: string; at: number } }
  | { unlessEnded: { orgId: string; userId: string; since: number }; changes: Change[] };

/**
 * The caller finds these by what the event names: whose invitations an
 * invitation to an address changed, whose organizations' member lists show
 * a person.
 */
export type Touched = Change | { invitee: string } | { memberOf: string };

/** A write turned into the forget of its key (a late event, or one that could not be claimed). */
export const asForget = (change: CacheWrite): CacheKey => ({ cache: change.cache, key: change.key });

const text = (value: unknown) => (typeof value === "string" && value.length > 0 ? value : null);
const time = (value: unknown) => (typeof value === "number" && Number.isFinite(value) ? value : null);
const record = (value: unknown): Record<string, unknown> =>
  typeof value === "object" && value !== null ? (value as Record<string, unknown>) : {};

/** An organization's profile from Clerk's OrganizationJSON, as memberships.server's toProfile makes it; null without a name. */
function profileFrom(org: Record<string, unknown>, membersCount: number | null): OrgProfile | null {
  const id = text(org.id);
  const name = text(org.name);
  if (!id || !name || typeof org.slug !== "string") return null;
  return {
    id,
    name,
    slug: org.slug || null,
    imageUrl: org.has_image === true ? text(org.image_url) : null,
    membersCount,
    updatedAt: time(org.updated_at) ?? undefined,
  };
}

/** A member from Clerk's OrganizationMembershipJSON, as members.server's toMember makes it. */
function memberFrom(data: Record<string, unknown>, role: OrgRole): Member | null {
  const user = record(data.public_user_data);
  const userId = text(user.user_id);
  const joinedAt = time(data.created_at);
  if (!userId || joinedAt === null) return null;
  const name = [text(user.first_name), text(user.last_name)].filter(Boolean).join(" ");
  const identifier = text(user.identifier) ?? "";
  return {
    userId,
    name: name || identifier || "Unknown member",
    identifier,
    imageUrl: user.has_image === true ? text(user.image_url) : null,
    role,
    joinedAt,
    updatedAt: time(data.updated_at) ?? undefined,
  };
}

/**
 * The organization's profile written from its JSON: its name, slug and image
 * unless the kept one is newer; its member count from the JSON, else the kept
 * one's (forgotten when neither says).
 */
function profileWrite(org: Record<string, unknown>): CacheWrite | null {
  const orgId = text(org.id);
  // Not an organization's whole JSON: nothing to write from.
  if (!orgId || !profileFrom(org, null)) return null;
  const count = time(org.members_count);
  return {
    cache: "profiles",
    key: orgId,
    next(current) {
      // Nothing kept: nothing to say this payload is newer than (the organization may be gone since).
      if (current === null) return null;
      const membersCount = count ?? current.membersCount ?? null;
      const payload = profileFrom(org, membersCount);
      if (!payload || membersCount === null) return null;
      if (current.updatedAt !== undefined && (payload.updatedAt ?? -Infinity) < current.updatedAt)
        return { ...current, membersCount };
      return payload;
    },
  };
}

/**
 * The profile written from an organization's JSON, unless the organization
 * was deleted after that JSON's change (a late delivery: its tombstone);
 * forgotten where the JSON cannot be written from.
 */
function profileChange(org: Record<string, unknown>): Change {
  const orgId = text(org.id) ?? "";
  const write = profileWrite(org);
  const since = time(org.updated_at);
  if (!write || since === null) return { cache: "profiles", key: orgId };
  return { unlessEnded: { orgId, userId: WHOLE_ORGANIZATION, since }, changes: [write] };
}

/**
 * The membership in the person's kept list: added, its role replaced, or
 * removed, only by an event newer than what the list says of it. An entry
 * without Clerk's time, or an addition the list may already have seen
 * undone (the list was read after the event's change), forgets the list.
 */
function membershipsWrite(action: string, orgId: string, userId: string, role: OrgRole, at: number): CacheWrite {
  return {
    cache: "memberships",
    key: userId,
    next(current, keptAt) {
      if (current === null) return null;
      const kept = current.find((m) => m.orgId === orgId);
      const others = current.filter((m) => m.orgId !== orgId);
      if (kept) {
        if (kept.updatedAt === undefined) return null;
        // The kept entry is newer (a later change, read or written): this event is late.
        if (kept.updatedAt > at || (kept.updatedAt === at && action !== "deleted")) return current;
        return action === "deleted" ? others : [...others, { orgId, role, updatedAt: at }];
      }
      if (action === "deleted") return current;
      // A role changed for a membership the list lacks: the list (or the event) is out of date.
      if (action === "updated") return null;
      // Created, and not in the list: new since the list was read, or ended since (and the list shows it).
      if (keptAt === null || at <= keptAt + CLOCK_SKEW_MS) return null;
      return [...others, { orgId, role, updatedAt: at }];
    },
  };
}

/** The organization's newest members and count, patched where that is exact; else forgotten. */
function latestMembersWrite(action: string, orgId: string, member: Member, count: number | null): CacheWrite {
  return {
    cache: "latestMembers",
    key: orgId,
    next(current) {
      if (current === null) return null;
      const kept = current.members.find((m) => m.userId === member.userId);
      const shown = kept !== undefined;
      // What is shown of the member is newer (or of unknown age): a late event changes nothing, an unknown age is read again.
      if (kept && action !== "deleted") {
        if (kept.updatedAt === undefined) return null;
        if ((member.updatedAt ?? -Infinity) <= kept.updatedAt) return current;
      }
      if (action === "updated") {
        const members = current.members.map((m) =>
          m.userId === member.userId ? { ...m, role: member.role, updatedAt: member.updatedAt } : m,
        );
        return { ...current, members };
      }
      if (count === null) return null;
      if (action === "created") {
        if (shown) return current;
        const members = [member, ...current.members].sort((a, b) => b.joinedAt - a.joinedAt).slice(0, LATEST_MEMBERS);
        return { members, total: count };
      }
      // Deleted: the next newest member, who would take its place, is not kept.
      if (shown && current.total > current.members.length) return null;
      return { members: current.members.filter((m) => m.userId !== member.userId), total: count };
    },
  };
}

/** The changes a membership's event makes (`organizationMembership.*`). */
function membershipEventChanges(action: string, data: Record<string, unknown>, recent: boolean): Change[] {
  const org = record(data.organization);
  const orgId = text(org.id);
  const userId = text(record(data.public_user_data).user_id);
  const role = text(data.role);
  const at = time(data.updated_at);
  // A changed role or an ended membership: the person's session tokens' claims are out of date.
  // (A new membership makes no token's claims wrong.)
  const lists = action === "created" ? (["memberships"] as const) : (["memberships", "membershipChanges"] as const);
  if (!orgId || !userId) {
    if (orgId && !userId) return [...organizationPages(orgId), { everyMemberOf: orgId }];
    // (Neither named: nothing narrower can be told.)
    return [
      ...(orgId ? organizationPages(orgId) : []),
      ...lists.map((cache): CacheKey => (userId ? { cache, key: userId } : { cache, prefix: "" })),
    ];
  }
  const tokens: CacheKey[] = action === "created" ? [] : [{ cache: "membershipChanges", key: userId }];
  const member = role ? memberFrom(data, role) : null;
  const directory: CacheKey = { cache: "memberPages", prefix: orgPrefix(orgId) };
  if (!recent || !role || at === null || !member) {
    return [...organizationPages(orgId), { cache: "memberships", key: userId }, ...tokens];
  }
  const count = time(org.members_count);
  const writes: Change[] = [
    membershipsWrite(action, orgId, userId, role, at),
    latestMembersWrite(action, orgId, member, count),
    // The member count, from the organization the payload carries (with its name, when that is not older).
    count === null ? { cache: "profiles", key: orgId } : profileChange(org),
    directory,
    ...tokens,
  ];
  if (action === "deleted") return [{ membershipEnded: { orgId, userId, at } }, ...writes];
  if (action === "created")
    return [{ unlessEnded: { orgId, userId, since: time(data.created_at) ?? at }, changes: writes }];
  return writes;
}

/** What an organization's own pages show of it. */
export const organizationPages = (orgId: string): CacheKey[] => [
  { cache: "profiles", key: orgId },
  { cache: "latestMembers", key: orgId },
  { cache: "memberPages", prefix: orgPrefix(orgId) },
];

/**
 * The changes a Clerk webhook event makes, and nothing else; null for an
 * event these caches do not depend on. `timestamp`: the event's (Clerk's
 * envelope, ms), which says whether it is recent enough to write from.
 */
export function changesOf(
  type: string,
  data: Record<string, unknown>,
  { timestamp = null, now = Date.now() }: { timestamp?: number | null; now?: number } = {},
): Touched[] | null {
  const [resource, action = ""] = type.split(".");
  const recent = timestamp !== null && Math.abs(now - timestamp) <= RECENT_MS;
  switch (resource) {
    case "organization": {
      const orgId = text(data.id);
      if (!orgId) return [];
      if (action === "created" || action === "updated") {
        // (Members' lists keep organization ids and pages their members, so a rename changes only the profile.)
        return [recent ? profileChange(data) : { cache: "profiles", key: orgId }];
      }
      // Deleted: Clerk sends no event for the memberships that went with it, and a kept list naming
      // it would ask Clerk for it at every view: its members' lists (the index knows them) drop it.
      return [
        ...organizationPages(orgId),
        { cache: "pendingInvitations", prefix: orgPrefix(orgId) },
        { organizationGone: orgId, at: timestamp ?? now },
      ];
    }
    case "organizationMembership":
      return membershipEventChanges(action, data, recent);
    case "organizationInvitation": {
      const orgId = text(data.organization_id);
      const email = text(data.email_address);
      return [
        orgId ? { cache: "pendingInvitations", prefix: orgPrefix(orgId) } : { cache: "pendingInvitations", prefix: "" },
        email ? { invitee: email } : { cache: "invitations", prefix: "" },
      ];
    }
    case "user": {
      const userId = text(data.id);
      if (!userId || action === "created") return [];
      // A new address may have invitations waiting; a name or picture shows in their organizations' member lists.
      if (action === "updated") return [{ cache: "invitations", key: userId }, { memberOf: userId }];
      // Deleted: their rows, and the member lists and counts of their organizations (from their kept memberships).
      return [{ cache: "invitations", key: userId }, { userGone: userId }];
    }
    case "session": {
      // Ended, removed or revoked: its tokens spend nothing of their owner's from now on.
      const sessionId = text(data.id);
      if (!sessionId || !["ended", "removed", "revoked"].includes(action)) return null;
      return [{ sessionGone: sessionId }];
    }
    default:
      return null;
  }
}
