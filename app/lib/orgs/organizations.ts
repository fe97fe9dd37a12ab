/** What pages and the switcher show of organizations; shared by server and browser. */
export type OrgRole = "org:admin" | "org:member" | (string & {});

export type OrgSummary = {
  id: string;
  name: string;
  /** Clerk lets an instance turn slugs off; such organizations are addressed by id. */
  slug: string | null;
  imageUrl: string | null;
  membersCount: number | null;
  role: OrgRole;
};

export type Member = {
  userId: string;
  name: string;
  identifier: string;
  imageUrl: string | null;
  role: OrgRole;
  joinedAt: number;
  /** Clerk's time of the membership's last change (ms): a late event's older role does not replace it. */
  updatedAt?: number;
};

export const INVITE_ROLES = ["org:member", "org:admin"] as const;

export function roleLabel(role: OrgRole): string {
  if (role === "org:admin") return "Admin";
  if (role === "org:member") return "Member";
  const bare = role.replace(/^org:/, "").replace(/[_-]+/g, " ");
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

export const isAdmin = (role: OrgRole) => role === "org:admin";

/** The organization's address: its slug, or its id when it has none. */
export const orgPath = (org: { id: string; slug: string | null }) => `/orgs/${org.slug ?? org.id}`;

/** The organization a URL's `:slug` segment names, by slug or by id. */
export function findOrganization<T extends { id: string; slug: string | null }>(list: T[], segment: string): T | null {
  return list.find((o) => o.slug === segment) ?? list.find((o) => o.id === segment) ?? null;
}

const ORG_ID = /^org_[A-Za-z0-9]{1,64}$/;

/**
 * Where Clerk's components send a person who left or deleted an organization:
 * /orgs, naming it, so that /orgs and the switcher drop it at once rather than
 * after their caches expire.
 */
export const afterLeavingPath = (orgId: string) => `/orgs?left=${encodeURIComponent(orgId)}`;

/** The organization a URL says the person just left or deleted (see afterLeavingPath), if it names a valid one. */
export function leftOrganization(search: URLSearchParams): string | null {
  const id = search.get("left");
  return id && ORG_ID.test(id) ? id : null;
}

/** Said in the browser when Clerk's components changed an organization, so lists of them read again. */
export const ORGANIZATIONS_CHANGED = "teamwork:organizations-changed";

/** An invitation waiting for the signed-in person, as the switcher and /orgs offer it. */
export type MyInvitation = {
  id: string;
  orgId: string;
  name: string;
  slug: string | null;
  imageUrl: string | null;
  role: OrgRole;
};

/** Where an Accept form posts (the /orgs page's action), with or without JavaScript. */
export const ACCEPT_INVITATION_PATH = "/orgs?index";

/** Members on a page of an organization's directory. */
export const MEMBERS_PAGE_SIZE = 10;
/** The newest members an organization's home shows. */
export const LATEST_MEMBERS = 5;

export type MemberPage = { members: Member[]; total: number };

export type PendingInvitation = {
  id: string;
  emailAddress: string;
  role: OrgRole;
  createdAt: number;
  url: string | null;
};

/**
 * A person's membership as kept: `updatedAt` is Clerk's time of its last
 * change (ms), from a read or a webhook's payload alike, so that an older
 * event delivered late never replaces it (webhook-changes.server). Absent
 * only in a copy an earlier release kept (such an entry is never patched:
 * an event forgets its list).
 */
export type MyMembership = { orgId: string; role: OrgRole; updatedAt?: number };

/** What is kept of an invitation: the organization is named from its profile, which a rename's webhook refreshes. */
export type KeptInvitation = Pick<MyInvitation, "id" | "orgId" | "role">;
