import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { newId } from "./ids";
import { defaultInstance, upgradeInstance } from "./instance";
import type { MembershipRecord, OrgRecord, RestrictionsRecord, Role, State, UserRecord } from "./records";
import { defaultRoles } from "./default-roles";

export function hashPassword(password: string): string {
  const salt = randomBytes(16).toString("hex");
  return `scrypt:${salt}:${scryptSync(password, salt, 32).toString("hex")}`;
}

export function verifyPassword(password: string, stored: string | null): boolean {
  if (!stored) return false;
  const [, salt, hash] = stored.split(":");
  if (!salt || !hash) return false;
  const expected = Buffer.from(hash, "hex");
  const actual = scryptSync(password, salt, 32);
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

/** The password every seeded demo user signs in with, unless the settings name another (`demoPassword`). */
export const DEMO_PASSWORD = "clerk-emulator-demo";

type SeedPerson = { key: string; first: string; last: string };

const PEOPLE: SeedPerson[] = [
  { key: "ada", first: "Ada", last: "Lovelace" },
  { key: "grace", first: "Grace", last: "Hopper" },
  { key: "alan", first: "Alan", last: "Turing" },
  { key: "katherine", first: "Katherine", last: "Johnson" },
  { key: "edsger", first: "Edsger", last: "Dijkstra" },
  { key: "barbara", first: "Barbara", last: "Liskov" },
  { key: "donald", first: "Donald", last: "Knuth" },
  { key: "margaret", first: "Margaret", last: "Hamilton" },
  { key: "john", first: "John", last: "Backus" },
  { key: "frances", first: "Frances", last: "Allen" },
  { key: "dennis", first: "Dennis", last: "Ritchie" },
  { key: "radia", first: "Radia", last: "Perlman" },
  { key: "ken", first: "Ken", last: "Thompson" },
  { key: "hedy", first: "Hedy", last: "Lamarr" },
  { key: "tim", first: "Tim", last: "Berners-Lee" },
  { key: "shafi", first: "Shafi", last: "Goldwasser" },
  { key: "leslie", first: "Leslie", last: "Lamport" },
  { key: "adele", first: "Adele", last: "Goldberg" },
  { key: "niklaus", first: "Niklaus", last: "Wirth" },
  { key: "sophie", first: "Sophie", last: "Wilson" },
  { key: "guido", first: "Guido", last: "van Rossum" },
  { key: "annie", first: "Annie", last: "Easley" },
  { key: "bjarne", first: "Bjarne", last: "Stroustrup" },
  { key: "carol", first: "Carol", last: "Shaw" },
];

/**
 * The known starting state. Ada administers Analytical Engines and is a member
 * of Difference & Co; Grace the other way round; everyone else belongs to
 * Analytical Engines, so its member list spans several pages.
 */
export function seedState(password = DEMO_PASSWORD): State {
  const t = Date.UTC(2026, 0, 5, 9, 0, 0);
  const passwordHash = hashPassword(password);
  const users: UserRecord[] = PEOPLE.map((p, i) => {
    const createdAt = t + i * 3_600_000;
    const email = `${p.key}@example.com`;
    const emailId = `idn_seed_${p.key}`;
    return {
      ...newUserFields(),
      id: `user_seed_${p.key}`,
      firstName: p.first,
      lastName: p.last,
      email,
      emailId,
      emails: [{ id: emailId, email, verified: true, createdAt, updatedAt: createdAt }],
      passwordHash,
      createdAt,
      updatedAt: createdAt,
    };
  });
  const organizations: OrgRecord[] = [
    {
      id: "org_seed_engines",
      name: "Analytical Engines",
      slug: "analytical-engines",
      createdBy: "user_seed_ada",
      ...newOrgFields(),
      createdAt: t,
      updatedAt: t,
    },
    {
      id: "org_seed_difference",
      name: "Difference & Co",
      slug: "difference-co",
      createdBy: "user_seed_grace",
      ...newOrgFields(),
      createdAt: t,
      updatedAt: t,
    },
  ];
  const membership = (orgId: string, userId: string, role: Role, i: number): MembershipRecord => ({
    id: `orgmem_seed_${orgId.slice(9)}_${userId.slice(10)}`,
    orgId,
    userId,
    role,
    createdAt: t + i * 86_400_000,
    updatedAt: t + i * 86_400_000,
  });
  const memberships: MembershipRecord[] = [
    membership("org_seed_engines", "user_seed_ada", "org:admin", 0),
    membership("org_seed_difference", "user_seed_grace", "org:admin", 0),
    membership("org_seed_difference", "user_seed_ada", "org:member", 1),
    ...users.slice(1).map((u, i) => membership("org_seed_engines", u.id, "org:member", i + 1)),
  ];
  return {
    version: 1,
    users,
    organizations,
    memberships,
    invitations: [],
    signInTokens: [],
    sessions: [],
    clients: [],
    handshakes: [],
    devBrowsers: [],
    images: [],
    roles: defaultRoles(),
    permissions: [],
    membershipRequests: [],
    jwtTemplates: [],
    actorTokens: [],
    emailLinks: [],
    passkeys: [],
    mfaSecrets: [],
    allowlist: [],
    blocklist: [],
    restrictions: noRestrictions(),
    organizationDomains: [],
    organizationSuggestions: [],
    instance: defaultInstance(),
    waitlistEntries: [],
  };
}

/** Clerk's default: anyone may sign up and sign in. */
export function noRestrictions(): RestrictionsRecord {
  return {
    allowlist: false,
    blocklist: false,
    allowlistBlocklistDisabledOnSignIn: false,
    blockEmailSubaddresses: false,
    blockDisposableEmailDomains: false,
  };
}

/** What a new user has before anything is set: no image, no metadata. */
export function newUserFields() {
  return {
    passwordUpdatedAt: null,
    imageId: null,
    publicMetadata: {},
    privateMetadata: {},
    unsafeMetadata: {},
    externalId: null,
    locale: null,
    legalAcceptedAt: null,
    lastSignInAt: null,
    username: null,
    phones: [],
    phoneId: null,
  };
}

export function newOrgFields() {
  return { imageId: null, publicMetadata: {}, privateMetadata: {}, maxAllowedMemberships: 0 };
}

/** Fills in what state files written by earlier emulator versions lack. */
export function upgrade(state: State): State {
  state.signInTokens ??= [];
  state.images ??= [];
  state.devBrowsers ??= [];
  state.roles ??= defaultRoles();
  state.permissions ??= [];
  state.membershipRequests ??= [];
  state.jwtTemplates ??= [];
  state.actorTokens ??= [];
  state.emailLinks ??= [];
  state.passkeys ??= [];
  state.mfaSecrets ??= [];
  state.allowlist ??= [];
  state.blocklist ??= [];
  state.restrictions ??= noRestrictions();
  upgradeInstance(state);
  for (const user of state.users) {
    user.emails ??= [
      { id: user.emailId, email: user.email, verified: true, createdAt: user.createdAt, updatedAt: user.updatedAt },
    ];
    user.passwordUpdatedAt ??= null;
    user.imageId ??= null;
    user.publicMetadata ??= {};
    user.privateMetadata ??= {};
    user.unsafeMetadata ??= {};
    user.externalId ??= null;
    user.locale ??= null;
    user.legalAcceptedAt ??= null;
    user.username ??= null;
    user.phones ??= [];
    user.phoneId ??= null;
  }
  for (const org of state.organizations) {
    org.imageId ??= null;
    org.publicMetadata ??= {};
    org.privateMetadata ??= {};
    org.maxAllowedMemberships ??= 0;
  }
  for (const invitation of state.invitations) {
    invitation.ticket ??= newTicket();
    invitation.redirectUrl ??= null;
    invitation.expiresAt ??= invitation.createdAt + INVITATION_LIFETIME_MS;
  }
  return state;
}

/** Clerk's invitations stay valid for 30 days. */
export const INVITATION_LIFETIME_MS = 30 * 86_400_000;

/** An unguessable ticket for an invitation or sign-in link. */
export const newTicket = () => newId("tkt", 43);
