import type { MyMembership } from "~/lib/orgs/organizations";
import type { OrganizationMembership } from "@clerk/backend";
import fc from "fast-check";
import type { CacheStore } from "~/lib/cache/store.server";
import type { MembershipIndex } from "~/lib/cache/membership-index.server";
import { toMembership } from "~/lib/orgs/memberships.server";
import { applyChanges, forgetKeysHere } from "~/lib/cache/apply-changes.server";
import { createOrgCaches, rememberOrganizationGone, type OrgCaches } from "~/lib/cache/org-caches.server";
import { changesOf, type Change, type Touched } from "~/lib/cache/webhook-changes.server";

/*
 * A model of Clerk, of Svix and of two instances sharing one store, for the
 * property that kept copies are versioned (docs/decisions/0011): random
 * promotions, demotions, removals, re-adds, renames and organization
 * deletions in Clerk; each event's webhook delivered late, twice, out of
 * order, or never, to either instance (which applies it as
 * server/coordination.ts does: the store, then the other instance's own
 * copies); reads of the person's memberships interleaved on both.
 *
 * Invariants, after every step:
 * - what an instance would serve without asking Clerk is a version of
 *   Clerk's that was still current when the fleet last saw that membership
 *   (by a read or a webhook): a revocation once seen is never granted again,
 *   and a kept copy never goes back to an older version;
 * - an organization whose deletion the fleet has seen has no profile served;
 * - after every event is delivered, every instance serves Clerk's truth.
 */

type OrgId = string;
let runs = 0;
type Role = "org:admin" | "org:member";
/** A membership's state in Clerk from `start` on: a role, or none. */
type Version = { start: number; role: Role | null };

export type Step =
  | { kind: "role"; org: number; role: Role | null }
  | { kind: "rename"; org: number }
  | { kind: "deleteOrg"; org: number }
  | { kind: "deliver"; pick: number; instance: number; keep: boolean }
  | { kind: "read"; instance: number };

export const stepArbitrary: fc.Arbitrary<Step> = fc.oneof(
  {
    arbitrary: fc.record({
      kind: fc.constant("role" as const),
      org: fc.nat(1),
      role: fc.constantFrom<Role | null>("org:admin", "org:member", null),
    }),
    weight: 4,
  },
  { arbitrary: fc.record({ kind: fc.constant("rename" as const), org: fc.nat(1) }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant("deleteOrg" as const), org: fc.nat(1) }), weight: 1 },
  {
    arbitrary: fc.record({
      kind: fc.constant("deliver" as const),
      pick: fc.nat(20),
      instance: fc.nat(1),
      keep: fc.boolean(),
    }),
    weight: 5,
  },
  { arbitrary: fc.record({ kind: fc.constant("read" as const), instance: fc.nat(1) }), weight: 3 },
);

/** An event, and the membership version it shows the fleet (none for a rename). */
type Event = {
  type: string;
  data: Record<string, unknown>;
  timestamp: number;
  seen: { org: OrgId; at: number } | null;
};

/** Clerk's side: each membership's history, each organization's state, and the events not yet delivered. */
class Clerk {
  last = 0;
  history: Map<OrgId, Version[]>;
  updatedAt = new Map<OrgId, number>();
  createdAt = new Map<OrgId, number>();
  deleted = new Map<OrgId, number>();
  renamed: Map<OrgId, number>;
  outbox: Event[] = [];

  /** One run's person and two organizations (a store shared by several runs, Redis, holds each run's keys apart). */
  constructor(
    readonly orgs: readonly [OrgId, OrgId],
    readonly user: string,
  ) {
    this.history = new Map(orgs.map((org) => [org, [{ start: 0, role: null }]]));
    this.renamed = new Map(orgs.map((org) => [org, 1]));
  }

  /** Clerk's clock: this server's, strictly increasing. */
  now() {
    return (this.last = Math.max(Date.now(), this.last + 1));
  }
  current(org: OrgId): Version {
    const versions = this.history.get(org)!;
    return versions[versions.length - 1]!;
  }
  organizationJson(org: OrgId) {
    return {
      object: "organization",
      id: org,
      name: `${org} v${this.renamed.get(org)}`,
      slug: org,
      has_image: false,
      image_url: "",
      members_count: 2,
      created_at: 1,
      updated_at: this.renamed.get(org),
    };
  }
  membershipJson(org: OrgId, role: Role) {
    return {
      object: "organization_membership",
      id: `orgmem_${org}`,
      role,
      organization: this.organizationJson(org),
      public_user_data: { user_id: this.user, identifier: "model@example.com", first_name: "Mo", has_image: false },
      created_at: this.createdAt.get(org),
      updated_at: this.updatedAt.get(org),
    };
  }
  setRole(org: OrgId, role: Role | null) {
    if (this.deleted.has(org)) return;
    const was = this.current(org).role;
    if (was === role) return;
    const at = this.now();
    this.history.get(org)!.push({ start: at, role });
    if (role === null) {
      // Clerk's deleted membership is the membership as it was: its last change's time.
      const data = this.membershipJson(org, was!);
      this.outbox.push({ type: "organizationMembership.deleted", data, timestamp: at, seen: { org, at } });
      return;
    }
    if (was === null) this.createdAt.set(org, at);
    this.updatedAt.set(org, at);
    const type = was === null ? "organizationMembership.created" : "organizationMembership.updated";
    this.outbox.push({ type, data: this.membershipJson(org, role), timestamp: at, seen: { org, at } });
  }
  rename(org: OrgId) {
    if (this.deleted.has(org)) return;
    const at = this.now();
    this.renamed.set(org, at);
    this.outbox.push({ type: "organization.updated", data: this.organizationJson(org), timestamp: at, seen: null });
  }
  deleteOrganization(org: OrgId) {
    if (this.deleted.has(org)) return;
    const at = this.now();
    this.deleted.set(org, at);
    if (this.current(org).role !== null) this.history.get(org)!.push({ start: at, role: null });
    const data = { object: "organization", id: org, deleted: true };
    this.outbox.push({ type: "organization.deleted", data, timestamp: at, seen: { org, at } });
  }
  /** The person's memberships as Clerk's Backend API answers them now, kept as the app keeps them. */
  memberships(): MyMembership[] {
    return this.orgs.flatMap((org) => {
      const { role } = this.current(org);
      if (role === null) return [];
      // The fields of the SDK's OrganizationMembership the app reads (the class is not exported as a value).
      const sdk = {
        role,
        organization: { id: org },
        createdAt: this.createdAt.get(org)!,
        updatedAt: this.updatedAt.get(org)!,
      } as unknown as OrganizationMembership;
      return [toMembership(sdk)];
    });
  }
}

const NOT_KEPT = new Error("not kept");
const settle = () => new Promise<void>((resolve) => setTimeout(resolve, 2));

/** Two instances over one store and one membership index, as server/services.ts wires them. */
export type Fleet = { store: CacheStore; membershipIndex: MembershipIndex };

/** Runs the steps against a fresh fleet; throws with the step and what was served when an invariant fails. */
export async function runModel(steps: Step[], fleet: () => Promise<Fleet>): Promise<void> {
  const run = `${process.pid}_${(runs += 1)}`;
  const clerk = new Clerk([`org_a${run}`, `org_b${run}`], `user_model${run}`);
  const { orgs, user } = clerk;
  const { store, membershipIndex } = await fleet();
  const instances: OrgCaches[] = [0, 1].map(() => createOrgCaches({ store, membershipIndex, webhooks: true }));
  /** The newest version of each membership the fleet has seen (by a read or a webhook). */
  const seen = new Map<OrgId, number>(orgs.map((org) => [org, 0]));
  const deletionSeen = new Set<OrgId>();

  const deliver = async (event: Event, instance: number) => {
    const touched = changesOf(event.type, event.data, { timestamp: event.timestamp });
    const changes = (touched ?? []).filter((t: Touched): t is Change => !("invitee" in t) && !("memberOf" in t));
    const keys = await applyChanges(instances[instance]!, changes);
    forgetKeysHere(instances[1 - instance]!, keys);
    if (event.seen) seen.set(event.seen.org, Math.max(seen.get(event.seen.org)!, event.seen.at));
    if (event.type === "organization.deleted" && event.seen) deletionSeen.add(event.seen.org);
  };
  const read = async (instance: number) => {
    await instances[instance]!.memberships.get(user, async () => {
      for (const org of orgs) seen.set(org, Math.max(seen.get(org)!, clerk.current(org).start));
      return clerk.memberships();
    });
    for (const org of orgs) {
      await instances[instance]!.profiles.get(org, async () => {
        if (clerk.deleted.has(org)) {
          // As memberships.server's organizationProfile does with Clerk's 404.
          await rememberOrganizationGone(instances[instance]!, org);
          deletionSeen.add(org);
          throw Object.assign(new Error("not found"), { status: 404 });
        }
        const json = clerk.organizationJson(org);
        return { id: org, name: json.name, slug: org, imageUrl: null, membersCount: 2, updatedAt: json.updated_at };
      }).catch(() => undefined);
    }
  };
  /** What an instance serves without asking Clerk: null when it would ask. */
  const served = (caches: OrgCaches) =>
    caches.memberships
      .get(user, () => Promise.reject(NOT_KEPT))
      .catch((error: unknown) => {
        if (error === NOT_KEPT) return null;
        throw error;
      });
  const check = async (step: Step | "end", index: number) => {
    for (const [instance, caches] of instances.entries()) {
      const list = await served(caches);
      if (list === null) continue;
      for (const org of orgs) {
        const role = list.find((m) => m.orgId === org)?.role ?? null;
        const versions = clerk.history.get(org)!;
        const stillCurrent = versions.some(
          (v, i) => v.role === role && (versions[i + 1]?.start ?? Infinity) > seen.get(org)!,
        );
        if (!stillCurrent)
          throw new Error(
            `step ${index} (${JSON.stringify(step)}): instance ${instance} serves ${org} as ${role ?? "none"}, ` +
              `older than the version the fleet saw (${seen.get(org)}): ${JSON.stringify(versions)}`,
          );
        if (step === "end" && role !== clerk.current(org).role)
          throw new Error(
            `after every delivery, instance ${instance} serves ${org} as ${role}, Clerk says ${clerk.current(org).role}`,
          );
      }
      for (const org of deletionSeen) {
        const profile = await caches.profiles.get(org, () => Promise.reject(NOT_KEPT)).catch(() => null);
        if (profile !== null)
          throw new Error(`step ${index}: instance ${instance} serves the deleted ${org}'s profile (${profile.name})`);
      }
    }
  };

  for (const [index, step] of steps.entries()) {
    switch (step.kind) {
      case "role":
        clerk.setRole(orgs[step.org]!, step.role);
        break;
      case "rename":
        clerk.rename(orgs[step.org]!);
        break;
      case "deleteOrg":
        clerk.deleteOrganization(orgs[step.org]!);
        break;
      case "deliver": {
        if (clerk.outbox.length === 0) break;
        const at = step.pick % clerk.outbox.length;
        const event = clerk.outbox[at]!;
        // `keep`: delivered again later (a retry after a lost answer, or a duplicate).
        if (!step.keep) clerk.outbox.splice(at, 1);
        await deliver(event, step.instance);
        break;
      }
      case "read":
        await read(step.instance);
        break;
    }
    await settle();
    await check(step, index);
  }
  // Svix delivers what is left, in order.
  for (const [i, event] of clerk.outbox.entries()) await deliver(event, i % 2);
  await settle();
  await check("end", steps.length);
}
