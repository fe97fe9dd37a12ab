/** What pages and the switcher show of organizations; shared by server and browser. */
export type OrgRole = "org:admin" | "org:member" | (string & {});

export type OrgSummary = {
  id: string;
  name: string;
  slug: string;
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
};

export const INVITE_ROLES = ["org:member", "org:admin"] as const;

export function roleLabel(role: OrgRole): string {
  if (role === "org:admin") return "Admin";
  if (role === "org:member") return "Member";
  const bare = role.replace(/^org:/, "").replace(/[_-]+/g, " ");
  return bare.charAt(0).toUpperCase() + bare.slice(1);
}

export const isAdmin = (role: OrgRole) => role === "org:admin";

export const orgPath = (slug: string) => `/orgs/${slug}`;
