import { randomBytes, scryptSync, timingSafeEqual } from "node:crypto";
import { existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { newId, nowMs } from "./ids";

/** The emulator's whole state: plain records, serialisable as one JSON file. */
export type UserRecord = {
  id: string;
  firstName: string | null;
  lastName: string | null;
  email: string;
  emailId: string;
  passwordHash: string | null;
  createdAt: number;
  updatedAt: number;
  lastSignInAt: number | null;
};

export type OrgRecord = {
  id: string;
  name: string;
  /** null when the instance has organization slugs turned off. */
  slug: string | null;
  createdBy: string | null;
  createdAt: number;
  updatedAt: number;
};

export type Role = "org:admin" | "org:member";

export type MembershipRecord = {
  id: string;
  orgId: string;
  userId: string;
  role: Role;
  createdAt: number;
  updatedAt: number;
};

export type InvitationRecord = {
  id: string;
  orgId: string;
  email: string;
  role: Role;
  status: "pending" | "accepted" | "revoked";
  inviterUserId: string | null;
  /** The secret the invitation link carries (`__clerk_ticket`). */
  ticket: string;
  /** Where the link lands; null means the instance's sign-up or sign-in page. */
  redirectUrl: string | null;
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
};

/** A one-time sign-in link for a user, made with the Backend API (`/v1/sign_in_tokens`). */
export type SignInTokenRecord = {
  id: string;
  userId: string;
  ticket: string;
  status: "pending" | "accepted" | "revoked";
  expiresAt: number;
  createdAt: number;
  updatedAt: number;
};

export type SessionStatus = "active" | "ended" | "removed" | "revoked" | "expired";

export type SessionRecord = {
  id: string;
  clientId: string;
  userId: string;
  status: SessionStatus;
  lastActiveOrganizationId: string | null;
  createdAt: number;
  updatedAt: number;
  lastActiveAt: number;
  expireAt: number;
};

export type SignInRecord = {
  id: string;
  identifier: string | null;
  userId: string | null;
  status: "needs_identifier" | "needs_first_factor" | "complete";
  createdSessionId: string | null;
  firstFactorStrategy: string | null;
  firstFactorStatus: "unverified" | "verified" | "failed" | null;
  createdAt: number;
};

export type SignUpRecord = {
  id: string;
  email: string | null;
  passwordHash: string | null;
  firstName: string | null;
  lastName: string | null;
  emailVerification: "none" | "unverified" | "verified";
  /** The invitation ticket the sign-up started with: it verifies the email and is redeemed on completion. */
  ticket?: string | null;
  status: "missing_requirements" | "complete";
  createdUserId: string | null;
  createdSessionId: string | null;
  createdAt: number;
};

export type ClientRecord = {
  id: string;
  sessionIds: string[];
  lastActiveSessionId: string | null;
  signIn: SignInRecord | null;
  signUp: SignUpRecord | null;
  createdAt: number;
  updatedAt: number;
};

export type HandshakeRecord = { nonce: string; directives: string[]; expiresAt: number };

export type State = {
  version: 1;
  users: UserRecord[];
  organizations: OrgRecord[];
  memberships: MembershipRecord[];
  invitations: InvitationRecord[];
  signInTokens: SignInTokenRecord[];
  sessions: SessionRecord[];
  clients: ClientRecord[];
  handshakes: HandshakeRecord[];
};

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

/** The password every seeded demo user signs in with. */
export const DEMO_PASSWORD = "teamwork-demo";

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
export function seedState(): State {
  const t = Date.UTC(2026, 0, 5, 9, 0, 0);
  const passwordHash = hashPassword(DEMO_PASSWORD);
  const users: UserRecord[] = PEOPLE.map((p, i) => ({
    id: `user_seed_${p.key}`,
    firstName: p.first,
    lastName: p.last,
    email: `${p.key}@example.com`,
    emailId: `idn_seed_${p.key}`,
    passwordHash,
    createdAt: t + i * 3_600_000,
    updatedAt: t + i * 3_600_000,
    lastSignInAt: null,
  }));
  const organizations: OrgRecord[] = [
    {
      id: "org_seed_engines",
      name: "Analytical Engines",
      slug: "analytical-engines",
      createdBy: "user_seed_ada",
      createdAt: t,
      updatedAt: t,
    },
    {
      id: "org_seed_difference",
      name: "Difference & Co",
      slug: "difference-co",
      createdBy: "user_seed_grace",
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
  };
}

/** Fills in what state files written by earlier emulator versions lack. */
function upgrade(state: State): State {
  state.signInTokens ??= [];
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

/**
 * Holds the state in memory; in local mode also in a JSON file, written a
 * moment after each change (atomically: temp file, then rename).
 */
export class Store {
  state: State;
  /** Testing tokens (`POST /v1/testing_tokens`) and when each expires; kept in memory only. */
  readonly testingTokens = new Map<string, number>();
  private saveTimer: NodeJS.Timeout | null = null;

  constructor(
    private readonly file: string | null,
    /** Instance settings, as Clerk's dashboard has them. */
    readonly settings: { organizationSlugs: boolean } = { organizationSlugs: true },
  ) {
    this.state = this.load();
  }

  private load(): State {
    if (this.file && existsSync(this.file)) {
      try {
        const parsed = JSON.parse(readFileSync(this.file, "utf8")) as State;
        if (parsed.version === 1) return upgrade(parsed);
      } catch {
        // A damaged file is replaced by a fresh seed rather than stopping start-up.
      }
    }
    return seedState();
  }

  reset(): void {
    this.state = seedState();
    this.testingTokens.clear();
    this.changed();
  }

  changed(): void {
    if (!this.file || this.saveTimer) return;
    this.saveTimer = setTimeout(() => this.flush(), 50);
    this.saveTimer.unref();
  }

  flush(): void {
    if (this.saveTimer) clearTimeout(this.saveTimer);
    this.saveTimer = null;
    if (!this.file) return;
    mkdirSync(dirname(this.file), { recursive: true });
    const temp = `${this.file}.tmp`;
    writeFileSync(temp, JSON.stringify(this.state));
    renameSync(temp, this.file);
  }

  // Look-ups ---------------------------------------------------------------
  user(id: string) {
    return this.state.users.find((u) => u.id === id) ?? null;
  }
  userByEmail(email: string) {
    const wanted = email.trim().toLowerCase();
    return this.state.users.find((u) => u.email.toLowerCase() === wanted) ?? null;
  }
  org(idOrSlug: string) {
    return this.state.organizations.find((o) => o.id === idOrSlug || o.slug === idOrSlug) ?? null;
  }
  membershipsOfOrg(orgId: string) {
    return this.state.memberships.filter((m) => m.orgId === orgId);
  }
  membershipsOfUser(userId: string) {
    return this.state.memberships.filter((m) => m.userId === userId);
  }
  membership(orgId: string, userId: string) {
    return this.state.memberships.find((m) => m.orgId === orgId && m.userId === userId) ?? null;
  }
  session(id: string) {
    return this.state.sessions.find((s) => s.id === id) ?? null;
  }
  client(id: string) {
    return this.state.clients.find((c) => c.id === id) ?? null;
  }

  // Changes ----------------------------------------------------------------
  createUser(input: { email: string; passwordHash: string | null; firstName: string | null; lastName: string | null }) {
    const t = nowMs();
    const user: UserRecord = {
      id: newId("user"),
      email: input.email.trim().toLowerCase(),
      emailId: newId("idn"),
      passwordHash: input.passwordHash,
      firstName: input.firstName,
      lastName: input.lastName,
      createdAt: t,
      updatedAt: t,
      lastSignInAt: null,
    };
    this.state.users.push(user);
    this.changed();
    return user;
  }

  createOrganization(input: { name: string; slug: string | null; createdBy: string | null }) {
    const t = nowMs();
    const org: OrgRecord = {
      id: newId("org"),
      name: input.name,
      slug: input.slug,
      createdBy: input.createdBy,
      createdAt: t,
      updatedAt: t,
    };
    this.state.organizations.push(org);
    if (input.createdBy) this.addMembership(org.id, input.createdBy, "org:admin");
    this.changed();
    return org;
  }

  addMembership(orgId: string, userId: string, role: Role) {
    const t = nowMs();
    const m: MembershipRecord = { id: newId("orgmem"), orgId, userId, role, createdAt: t, updatedAt: t };
    this.state.memberships.push(m);
    this.changed();
    return m;
  }

  removeMembership(m: MembershipRecord) {
    this.state.memberships = this.state.memberships.filter((other) => other !== m);
    // A session whose active organization this was has none now, as in Clerk.
    for (const s of this.state.sessions) {
      if (s.userId === m.userId && s.lastActiveOrganizationId === m.orgId) s.lastActiveOrganizationId = null;
    }
    this.changed();
  }

  createClient() {
    const t = nowMs();
    const client: ClientRecord = {
      id: newId("client", 32),
      sessionIds: [],
      lastActiveSessionId: null,
      signIn: null,
      signUp: null,
      createdAt: t,
      updatedAt: t,
    };
    this.state.clients.push(client);
    this.changed();
    return client;
  }

  createSession(client: ClientRecord, userId: string, lifetimeMs: number) {
    const t = nowMs();
    const session: SessionRecord = {
      id: newId("sess"),
      clientId: client.id,
      userId,
      status: "active",
      lastActiveOrganizationId: null,
      createdAt: t,
      updatedAt: t,
      lastActiveAt: t,
      expireAt: t + lifetimeMs,
    };
    this.state.sessions.push(session);
    client.sessionIds.push(session.id);
    client.lastActiveSessionId = session.id;
    client.updatedAt = t;
    const user = this.user(userId);
    if (user) user.lastSignInAt = t;
    this.changed();
    return session;
  }

  /** Active sessions of a client, expiring any whose time has passed. */
  activeSessions(client: ClientRecord): SessionRecord[] {
    const t = nowMs();
    const out: SessionRecord[] = [];
    for (const id of client.sessionIds) {
      const s = this.session(id);
      if (!s) continue;
      if (s.status === "active" && s.expireAt <= t) {
        s.status = "expired";
        this.changed();
      }
      if (s.status === "active") out.push(s);
    }
    return out;
  }

  endSession(session: SessionRecord, status: Exclude<SessionStatus, "active">) {
    session.status = status;
    session.updatedAt = nowMs();
    const client = this.client(session.clientId);
    if (client) {
      client.updatedAt = session.updatedAt;
      if (client.lastActiveSessionId === session.id) client.lastActiveSessionId = null;
    }
    this.changed();
  }
}
