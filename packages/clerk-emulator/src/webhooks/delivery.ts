import { randomBytes } from "node:crypto";
import { deletedJSON } from "../json/common";
import { backendInvitationJSON, membershipJSON, organizationJSON } from "../json/organizations";
import { permissionJSON, roleJSON } from "../json/roles";
import { backendSessionJSON } from "../json/sessions";
import { userJSON } from "../json/users";
import type { OutgoingMessage } from "../domain/messages";
import { organizationDomainJSON } from "../json/organization-domains";
import { waitlistEntryJSON } from "../json/waitlist";
import type { SessionRecord, SessionStatus, Store, UserRecord } from "../state/store";
import { svixHeaders } from "./signing";

export type WebhookSettings = {
  /** Where each event is POSTed (the app's `/webhooks/clerk`). */
  url: string;
  /** The endpoint's signing secret, as Clerk's dashboard shows it (`whsec_<base64>`). */
  secret: string;
  /** Seconds before each retry of a delivery that failed (Svix's schedule, shortened). */
  retryDelaysMs?: number[];
};

export type Delivery = {
  id: string;
  type: string;
  attempts: number;
  status: "pending" | "delivered" | "failed";
  lastStatusCode: number | null;
};

/** Svix's schedule is 5 s, 5 min, 30 min, 2 h…; a development stand-in gives up sooner. */
const RETRY_DELAYS_MS = [500, 1_000, 2_000, 4_000, 8_000];
const ATTEMPT_TIMEOUT_MS = 10_000;
const KEPT_DELIVERIES = 200;

type Kind =
  | "user"
  | "organization"
  | "organizationMembership"
  | "organizationInvitation"
  | "organizationDomain"
  | "waitlistEntry"
  | "role"
  | "permission";
type Snapshot = Map<string, { kind: Kind; signature: string; deleted: () => unknown }>;
/** Each session's status: only its creation and its end are events (`touch` and new tokens are not). */
type SessionSnapshot = Map<string, SessionStatus>;

/**
 * How a session that was active ended, as Clerk's `session.*` event names it.
 * An expired session has no event: Clerk sends none (`SessionWebhookEvent` in
 * clerk/javascript's packages/backend/src/api/resources/Webhooks.ts).
 */
const SESSION_ENDINGS: Partial<Record<SessionStatus, string>> = {
  ended: "session.ended",
  removed: "session.removed",
  revoked: "session.revoked",
};

/** A record as it stands (JSON.stringify's native path: this runs for every record after every change). */
const signatureOf = (record: object) => JSON.stringify(record);

/**
 * Whether two signatures differ in more than the times that move on every sign-in or save
 * (and a user's count of failed attempts: a wrong password is no user.updated, the lock it may cause is).
 */
const changedBeyondTimes = (before: string, after: string) => {
  const meaningful = (signature: string) =>
    JSON.stringify(JSON.parse(signature), (key, value: unknown) =>
      key === "updatedAt" || key === "lastSignInAt" || key === "failedAttempts" ? undefined : value,
    );
  return meaningful(before) !== meaningful(after);
};

/**
 * Clerk's webhooks for every change to users, organizations, memberships,
 * invitations and sessions, however it was made (Frontend API, Backend API,
 * seed), and for every email or text Clerk would send. The
 * store's state is compared with the last one after each change (once per
 * tick), so no change anywhere can forget to send its event. Each message is
 * delivered in the background and retried with back-off, with the same
 * `svix-id` and a fresh signature, as Svix does.
 */
export function createWebhookSender(store: Store, settings: WebhookSettings) {
  const deliveries: Delivery[] = [];
  const timers = new Set<NodeJS.Timeout>();
  const delays = settings.retryDelaysMs ?? RETRY_DELAYS_MS;
  let closed = false;
  let before = snapshot();
  let sessionsBefore = sessionSnapshot();
  /** Emails and texts "sent" since the last comparison: sent after the changes that caused them. */
  let outbox: OutgoingMessage[] = [];
  let scheduled = false;

  function sessionSnapshot(): SessionSnapshot {
    return new Map(store.state.sessions.map((s) => [s.id, s.status]));
  }

  function snapshot(): Snapshot {
    const now: Snapshot = new Map();
    const { users, organizations, memberships, invitations } = store.state;
    for (const user of users) {
      now.set(user.id, { kind: "user", signature: signatureOf(user), deleted: () => deletedJSON("user", user.id) });
    }
    for (const org of organizations) {
      const deleted = () => deletedJSON("organization", org.id, { slug: org.slug ?? undefined });
      now.set(org.id, { kind: "organization", signature: signatureOf(org), deleted });
    }
    // A removed membership is sent whole, as Clerk does (while its organization and person exist).
    for (const m of memberships) {
      const deleted = () => (store.org(m.orgId) && store.user(m.userId) ? membershipJSON(store, m, "bapi") : null);
      now.set(m.id, { kind: "organizationMembership", signature: signatureOf(m), deleted });
    }
    for (const inv of invitations) {
      if (!inv.orgId) continue;
      const deleted = () => backendInvitationJSON(store, inv, null);
      now.set(inv.id, { kind: "organizationInvitation", signature: signatureOf(inv), deleted });
    }
    // Roles and custom permissions (Clerk's `role.*` and `permission.*`).
    for (const role of store.state.roles) {
      now.set(role.id, { kind: "role", signature: signatureOf(role), deleted: () => deletedJSON("role", role.id) });
    }
    for (const p of store.state.permissions) {
      now.set(p.id, { kind: "permission", signature: signatureOf(p), deleted: () => deletedJSON("permission", p.id) });
    }
    // Their JSON is the signature: their counts of pending invitations and suggestions, and a waitlist
    // entry's `completed`, follow other records.
    for (const d of store.state.organizationDomains) {
      const deleted = () => deletedJSON("organization_domain", d.id);
      now.set(d.id, { kind: "organizationDomain", signature: signatureOf(organizationDomainJSON(store, d)), deleted });
    }
    for (const e of store.state.waitlistEntries) {
      // Clerk has no waitlistEntry.deleted.
      now.set(e.id, {
        kind: "waitlistEntry",
        signature: signatureOf(waitlistEntryJSON(store, e, null)),
        deleted: () => null,
      });
    }
    return now;
  }

  /** The current JSON of a record that exists now. */
  function dataOf(kind: Kind, id: string): unknown {
    if (kind === "user") return userJSON(store, store.user(id)!, "bapi");
    if (kind === "organization") return organizationJSON(store, store.org(id)!, "bapi");
    if (kind === "role")
      return roleJSON(
        store,
        store.state.roles.find((r) => r.id === id)!,
        "bapi",
      );
    if (kind === "permission") return permissionJSON(store.state.permissions.find((p) => p.id === id)!);
    if (kind === "organizationDomain") {
      return organizationDomainJSON(
        store,
        store.state.organizationDomains.find((d) => d.id === id)!,
      );
    }
    if (kind === "waitlistEntry") {
      return waitlistEntryJSON(
        store,
        store.state.waitlistEntries.find((e) => e.id === id)!,
        null,
      );
    }
    if (kind === "organizationMembership") {
      return membershipJSON(
        store,
        store.state.memberships.find((m) => m.id === id)!,
        "bapi",
      );
    }
    return backendInvitationJSON(
      store,
      store.state.invitations.find((i) => i.id === id)!,
      null,
    );
  }

  function invitationAction(id: string): string {
    const status = store.state.invitations.find((i) => i.id === id)?.status;
    return status === "pending" ? "updated" : (status ?? "revoked");
  }

  /**
   * A session as Clerk's `session.*` webhooks carry it: the Backend API's
   * Session with its user (`SessionEventPayload` in Clerk's webhooks OpenAPI).
   * A user deleted in the same change (their sessions are revoked with them)
   * is shown as they were just before.
   */
  function sessionEventJSON(session: SessionRecord, previous: Snapshot) {
    let user: UserRecord | null = store.user(session.userId);
    const then = previous.get(session.userId);
    if (!user && then?.kind === "user") user = JSON.parse(then.signature) as UserRecord;
    // Clerk's webhook spec has no session `tasks` (the Backend API's session has them), nor the `pending`
    // status they make: the session's own status (`active` while it has tasks to do).
    const { tasks: _tasks, ...json } = backendSessionJSON(store, session);
    return { ...json, status: session.status, user: user ? userJSON(store, user, "bapi") : null };
  }

  function compareSessions(previous: Snapshot) {
    const now = sessionSnapshot();
    for (const session of store.state.sessions) {
      const then = sessionsBefore.get(session.id);
      if (then === undefined) send("session.created", sessionEventJSON(session, previous));
      const ending = (then ?? "active") === "active" ? SESSION_ENDINGS[session.status] : undefined;
      if (ending) send(ending, sessionEventJSON(session, previous));
    }
    sessionsBefore = now;
  }

  function compare() {
    scheduled = false;
    const after = snapshot();
    for (const [id, now] of after) {
      const then = before.get(id);
      if (then && (then.signature === now.signature || !changedBeyondTimes(then.signature, now.signature))) continue;
      const action = !then ? "created" : now.kind === "organizationInvitation" ? invitationAction(id) : "updated";
      // Clerk has no organizationInvitation.updated: only created, accepted and revoked.
      if (action === "updated" && now.kind === "organizationInvitation") continue;
      send(`${now.kind}.${action}`, dataOf(now.kind, id));
    }
    // Sessions after the records they belong to are made, and before those records' deletions.
    compareSessions(before);
    for (const [id, then] of before) {
      // An invitation leaves the store only with its organization, and a membership whose organization
      // or person is gone with them: their own events say so.
      const data = after.has(id) || then.kind === "organizationInvitation" ? null : then.deleted();
      if (data) send(`${then.kind}.deleted`, data);
    }
    before = after;
    const messages = outbox;
    outbox = [];
    for (const message of messages) send(message.object === "email" ? "email.created" : "sms.created", message);
  }

  function send(type: string, data: unknown) {
    // Without a Svix app (`DELETE /v1/webhooks/svix`), Clerk sends no webhook.
    if (!store.state.instance.svixApp) return;
    const id = `msg_${randomBytes(12).toString("hex")}`;
    const body = JSON.stringify({
      data,
      object: "event",
      type,
      timestamp: Date.now(),
      instance_id: "ins_emulator",
      event_attributes: { http_request: { client_ip: "", user_agent: "" } },
    });
    const delivery: Delivery = { id, type, attempts: 0, status: "pending", lastStatusCode: null };
    deliveries.push(delivery);
    if (deliveries.length > KEPT_DELIVERIES) deliveries.shift();
    void attempt(delivery, body);
  }

  async function attempt(delivery: Delivery, body: string) {
    if (closed) return;
    delivery.attempts += 1;
    try {
      const res = await fetch(settings.url, {
        method: "POST",
        headers: svixHeaders(settings.secret, delivery.id, body),
        body,
        signal: AbortSignal.timeout(ATTEMPT_TIMEOUT_MS),
      });
      await res.arrayBuffer();
      delivery.lastStatusCode = res.status;
      if (res.ok) {
        delivery.status = "delivered";
        return;
      }
    } catch {
      delivery.lastStatusCode = null;
    }
    const delay = delays[delivery.attempts - 1];
    if (delay === undefined || closed) {
      delivery.status = "failed";
      console.error(
        `Clerk emulator: the ${delivery.type} webhook (${delivery.id}) was not accepted at ${settings.url} after ${delivery.attempts} attempts (last answer: ${delivery.lastStatusCode ?? "none"}).`,
      );
      return;
    }
    const timer = setTimeout(() => {
      timers.delete(timer);
      void attempt(delivery, body);
    }, delay);
    timer.unref();
    timers.add(timer);
  }

  return {
    /**
     * After a change to the store: compared once this tick's changes are all
     * made. A reset sends nothing: the new state is the baseline.
     */
    changed(reset: boolean) {
      if (reset) {
        before = snapshot();
        sessionsBefore = sessionSnapshot();
      }
      if (reset || scheduled || closed) return;
      scheduled = true;
      setImmediate(compare);
    },
    /** An email or text message Clerk would send: `email.created` or `sms.created`, after this tick's changes. */
    sent(message: OutgoingMessage) {
      if (closed) return;
      outbox.push(message);
      if (scheduled) return;
      scheduled = true;
      setImmediate(compare);
    },
    deliveries: () => deliveries.map((d) => ({ ...d })),
    close() {
      closed = true;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
    },
  };
}

export type WebhookSender = ReturnType<typeof createWebhookSender>;
