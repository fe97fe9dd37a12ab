import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { newId, nowMs } from "./ids";
import type { OutgoingMessage } from "../domain/messages";
import type { Settings } from "../settings";
import type {
  ClientRecord,
  ImageRecord,
  MembershipRecord,
  MemoryState,
  OrgRecord,
  Role,
  SessionActivity,
  SessionRecord,
  SessionStatus,
  State,
  UserRecord,
} from "./records";
import { newOrgFields, newUserFields, seedState, upgrade } from "./seed";

export type * from "./records";
export { DEMO_PASSWORD, hashPassword, INVITATION_LIFETIME_MS, newTicket, verifyPassword } from "./seed";

/**
 * What the store and the domain read of the settings (src/settings.ts), and where browsers reach the
 * emulator (`publicUrl`: its images are served under it, its emails link to it). `organizationSlugs`
 * may change while running (`PATCH /v1/instance/organization_settings`), and so may `instance`, the
 * dashboard's switches (the control API's `PATCH /_emulator/instance`).
 */
export type StoreSettings = Pick<
  Settings,
  "organizationSlugs" | "applicationName" | "demoPassword" | "passkeys" | "instance"
> & { publicUrl: string };

/**
 * `T` with every property, list, map and set read-only, all the way down: what the store hands to anyone
 * reading its state.
 */
export type DeepReadonly<T> = T extends (...args: never[]) => unknown
  ? T
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<K, DeepReadonly<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepReadonly<V>>
      : T extends readonly (infer E)[]
        ? readonly DeepReadonly<E>[]
        : T extends object
          ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
          : T;

/** The state's lists of records (`users`, `roles`…), which `Store.find` searches. */
export type ListName = { [K in keyof State]: State[K] extends unknown[] ? K : never }[keyof State];

function emptyMemoryState(): MemoryState {
  return {
    testingTokens: new Map(),
    emailVerifications: new Map(),
    phoneVerifications: new Map(),
    linkTokens: new Map(),
    webhookPortalTokens: new Set(),
  };
}

/**
 * Holds the state in memory; in local mode also in a JSON file, written a
 * moment after each change (atomically: temp file, then rename).
 */
export class Store {
  /** The state itself: mutable only here and inside `write`; everyone else reads `state`. */
  private current: State;
  /** What is kept in memory only (tokens, verifications): changed inside `write`, emptied by `reset`. */
  private currentMemory: MemoryState = emptyMemoryState();
  private saveTimer: NodeJS.Timeout | null = null;
  /** How many `write`s are under way: only the outermost tells the listeners. */
  private writeDepth = 0;
  /** Told of every change (the webhook sender); `reset` when the state was replaced by the seed. */
  private readonly listeners: ((reset: boolean) => void)[] = [];
  /** Told of every email and text message Clerk would send (the webhook sender's `email.created`, `sms.created`). */
  private readonly messageListeners: ((message: OutgoingMessage) => void)[] = [];
  /** Image bytes when nothing is kept on disk. */
  private readonly imageBytes = new Map<string, Buffer>();

  constructor(
    private readonly file: string | null,
    readonly settings: StoreSettings,
  ) {
    this.current = this.load();
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
    return seedState(this.settings.demoPassword);
  }

  /**
   * The state, read-only by its type: nothing outside a `write` can assign into it, push to its lists or
   * change a record found in them (the type check refuses it). Changes go through `write`, whose callback
   * gets the same state, mutable.
   */
  get state(): DeepReadonly<State> {
    return this.current;
  }

  /** The memory-only part (tokens, verifications), read-only the same way; `write`'s second argument changes it. */
  get memory(): DeepReadonly<MemoryState> {
    return this.currentMemory;
  }

  reset(): void {
    this.apply(() => {
      for (const image of this.current.images) this.deleteImage(image.id);
      this.current = seedState(this.settings.demoPassword);
      this.currentMemory = emptyMemoryState();
    }, true);
  }

  onChange(listener: (reset: boolean) => void): void {
    this.listeners.push(listener);
  }

  onMessage(listener: (message: OutgoingMessage) => void): void {
    this.messageListeners.push(listener);
  }

  /** "Sends" an email or a text message: nothing leaves the emulator but the webhook that says so. */
  send(message: OutgoingMessage): void {
    for (const listener of this.messageListeners) listener(message);
  }

  /**
   * The one way the domain changes the state: applies `change`, then tells the
   * listeners (the webhook sender) and schedules the save once. A write inside
   * a write tells them once, when the outer one ends; a change that throws
   * (a refused request) tells no one, as before.
   */
  write<T>(change: (state: State, memory: MemoryState) => T): T {
    return this.apply(change, false);
  }

  private apply<T>(change: (state: State, memory: MemoryState) => T, reset: boolean): T {
    this.writeDepth++;
    let result: T;
    try {
      result = change(this.current, this.currentMemory);
    } finally {
      this.writeDepth--;
    }
    if (this.writeDepth === 0) this.changed(reset);
    return result;
  }

  /**
   * The store's own changes (below) are made inside a `write`: this refuses
   * one made outside, which would change the state without telling anyone.
   */
  private writing(change: string): void {
    if (this.writeDepth === 0) throw new Error(`Store.${change} changes the state: call it inside store.write`);
  }

  /** Tells the listeners and schedules the save: when the outermost write ends (not when it throws). */
  private changed(reset: boolean): void {
    for (const listener of this.listeners) listener(reset);
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
    writeFileSync(temp, JSON.stringify(this.current));
    renameSync(temp, this.file);
  }

  // Images -------------------------------------------------------------------
  private imageFile(id: string): string | null {
    return this.file ? join(dirname(this.file), "clerk-emulator-images", id) : null;
  }

  saveImage(input: { name: string; contentType: string; bytes: Buffer }): ImageRecord {
    this.writing("saveImage");
    const image: ImageRecord = {
      id: newId("img"),
      name: input.name,
      contentType: input.contentType,
      size: input.bytes.length,
      createdAt: nowMs(),
    };
    const file = this.imageFile(image.id);
    if (file) {
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, input.bytes);
    } else {
      this.imageBytes.set(image.id, input.bytes);
    }
    this.current.images.push(image);
    return image;
  }

  image(id: string): { record: ImageRecord; bytes: Buffer } | null {
    const record = this.current.images.find((i) => i.id === id);
    if (!record) return null;
    const file = this.imageFile(id);
    const bytes = file ? (existsSync(file) ? readFileSync(file) : null) : this.imageBytes.get(id);
    return bytes ? { record, bytes } : null;
  }

  deleteImage(id: string | null): void {
    if (!id) return;
    this.writing("deleteImage");
    this.current.images = this.current.images.filter((i) => i.id !== id);
    const file = this.imageFile(id);
    if (file) rmSync(file, { force: true });
    this.imageBytes.delete(id);
  }

  // Look-ups ---------------------------------------------------------------
  // A look-up hands out a record as the handle a domain function changes (inside a `write`): its type is the
  // record's own, not the read-only view `state` gives.

  /** One of the state's lists, its records as handles (the list itself is read-only: add through `write`). */
  all<K extends ListName>(list: K): readonly State[K][number][] {
    return this.current[list];
  }

  /** The first record of one of the state's lists that `match` picks. */
  find<K extends ListName>(list: K, match: (record: State[K][number]) => boolean): State[K][number] | null {
    const records: State[K][number][] = this.current[list];
    return records.find(match) ?? null;
  }
  user(id: string) {
    return this.current.users.find((u) => u.id === id) ?? null;
  }
  /** The user a verified address identifies (any of theirs, not only the primary one). */
  userByEmail(email: string) {
    const wanted = email.trim().toLowerCase();
    return this.current.users.find((u) => u.emails.some((e) => e.verified && e.email === wanted)) ?? null;
  }
  /** Whether any user holds this address, verified or not (Clerk refuses it to anyone else). */
  emailTaken(email: string, except?: UserRecord) {
    const wanted = email.trim().toLowerCase();
    return this.current.users.some((u) => u !== except && u.emails.some((e) => e.email === wanted));
  }
  org(idOrSlug: string) {
    return this.current.organizations.find((o) => o.id === idOrSlug || o.slug === idOrSlug) ?? null;
  }
  membershipsOfOrg(orgId: string) {
    return this.current.memberships.filter((m) => m.orgId === orgId);
  }
  membershipsOfUser(userId: string) {
    return this.current.memberships.filter((m) => m.userId === userId);
  }
  membership(orgId: string, userId: string) {
    return this.current.memberships.find((m) => m.orgId === orgId && m.userId === userId) ?? null;
  }
  session(id: string) {
    return this.current.sessions.find((s) => s.id === id) ?? null;
  }
  client(id: string) {
    return this.current.clients.find((c) => c.id === id) ?? null;
  }

  // Changes ----------------------------------------------------------------
  /** A new user; their address verified unless `emailVerified` is false (an instance that does not verify at sign-up). */
  createUser(input: {
    email: string;
    emailVerified?: boolean;
    passwordHash: string | null;
    firstName: string | null;
    lastName: string | null;
  }) {
    this.writing("createUser");
    const t = nowMs();
    const email = input.email.trim().toLowerCase();
    const emailId = newId("idn");
    const user: UserRecord = {
      ...newUserFields(),
      id: newId("user"),
      email,
      emailId,
      emails: [{ id: emailId, email, verified: input.emailVerified ?? true, createdAt: t, updatedAt: t }],
      passwordHash: input.passwordHash,
      passwordUpdatedAt: input.passwordHash ? t : null,
      firstName: input.firstName,
      lastName: input.lastName,
      createdAt: t,
      updatedAt: t,
    };
    this.current.users.push(user);
    return user;
  }

  createOrganization(input: { name: string; slug: string | null; createdBy: string | null; creatorRole: Role }) {
    this.writing("createOrganization");
    const t = nowMs();
    const org: OrgRecord = {
      id: newId("org"),
      name: input.name,
      slug: input.slug,
      createdBy: input.createdBy,
      ...newOrgFields(),
      // The instance's default limit (`PATCH /v1/instance/organization_settings`); 0 is none.
      maxAllowedMemberships: this.current.instance.organizationSettings.maxAllowedMemberships,
      createdAt: t,
      updatedAt: t,
    };
    this.current.organizations.push(org);
    if (input.createdBy) this.addMembership(org.id, input.createdBy, input.creatorRole);
    return org;
  }

  addMembership(orgId: string, userId: string, role: Role) {
    this.writing("addMembership");
    const t = nowMs();
    const m: MembershipRecord = { id: newId("orgmem"), orgId, userId, role, createdAt: t, updatedAt: t };
    this.current.memberships.push(m);
    return m;
  }

  removeMembership(m: MembershipRecord) {
    this.writing("removeMembership");
    this.current.memberships = this.current.memberships.filter((other) => other !== m);
    // A session whose active organization this was has none now, as in Clerk.
    for (const s of this.current.sessions) {
      if (s.userId === m.userId && s.lastActiveOrganizationId === m.orgId) s.lastActiveOrganizationId = null;
    }
  }

  /** A user and everything that is theirs: sessions (revoked), memberships, image. Rules are the caller's. */
  deleteUser(user: UserRecord): void {
    this.writing("deleteUser");
    for (const s of this.current.sessions)
      if (s.userId === user.id && s.status === "active") this.endSession(s, "revoked");
    this.current.memberships = this.current.memberships.filter((m) => m.userId !== user.id);
    this.current.membershipRequests = this.current.membershipRequests.filter((r) => r.userId !== user.id);
    this.current.mfaSecrets = this.current.mfaSecrets.filter((s) => s.userId !== user.id);
    this.current.users = this.current.users.filter((u) => u !== user);
    this.deleteImage(user.imageId);
  }

  /** An organization with its memberships, invitations and logo; sessions whose active organization it was have none. */
  deleteOrganization(org: OrgRecord): void {
    this.writing("deleteOrganization");
    this.current.memberships = this.current.memberships.filter((m) => m.orgId !== org.id);
    this.current.invitations = this.current.invitations.filter((i) => i.orgId !== org.id);
    this.current.membershipRequests = this.current.membershipRequests.filter((r) => r.orgId !== org.id);
    for (const s of this.current.sessions) if (s.lastActiveOrganizationId === org.id) s.lastActiveOrganizationId = null;
    this.current.organizations = this.current.organizations.filter((o) => o !== org);
    this.deleteImage(org.imageId);
  }

  createClient() {
    this.writing("createClient");
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
    this.current.clients.push(client);
    return client;
  }

  createSession(client: ClientRecord, userId: string, lifetimeMs: number, activity?: SessionActivity) {
    this.writing("createSession");
    const t = nowMs();
    const session: SessionRecord = {
      id: newId("sess"),
      clientId: client.id,
      userId,
      status: "active",
      activity,
      lastActiveOrganizationId: null,
      createdAt: t,
      updatedAt: t,
      lastActiveAt: t,
      expireAt: t + lifetimeMs,
    };
    this.current.sessions.push(session);
    client.sessionIds.push(session.id);
    client.lastActiveSessionId = session.id;
    client.updatedAt = t;
    const user = this.user(userId);
    if (user) user.lastSignInAt = t;
    return session;
  }

  /** Active sessions of a client, expiring any whose time has passed. */
  activeSessions(client: ClientRecord): SessionRecord[] {
    const t = nowMs();
    const sessions = client.sessionIds.map((id) => this.session(id)).filter((s) => s !== null);
    const expired = sessions.filter((s) => s.status === "active" && s.expireAt <= t);
    if (expired.length > 0)
      this.write(() => {
        for (const s of expired) s.status = "expired";
      });
    return sessions.filter((s) => s.status === "active");
  }

  endSession(session: SessionRecord, status: Exclude<SessionStatus, "active">) {
    this.writing("endSession");
    session.status = status;
    session.updatedAt = nowMs();
    const client = this.client(session.clientId);
    if (client) {
      client.updatedAt = session.updatedAt;
      if (client.lastActiveSessionId === session.id) client.lastActiveSessionId = null;
    }
  }
}
