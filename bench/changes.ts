/**
 * What a change in Clerk costs the whole fleet once its webhook has landed:
 * a rename, a membership change, and someone else's throwaway organization
 * (created and deleted). Twenty people of one organization, their pages
 * warm on every instance, view them again spread over all the instances;
 * Clerk's calls are counted from just before the change to the last view,
 * the change's own call(s) left out. A change in Clerk should be read once
 * for the whole fleet (≤ 1 call), and a change to no one's organization
 * not at all (0). The views are checked too: a rename served with the old
 * name would be cheap and wrong.
 */
import { newPerson, webhooksDelivered } from "../tests/support/emulator-api";
import { emulatorSession } from "../tests/support/session";
import { backendCalls } from "./servers";
import { addFailures, errorKind, type Failures } from "./failures";
import { countStatus, describeStatuses, type Stack, type Statuses } from "./stack";

const PEOPLE = 20;
/** Views in flight at once: the people of one organization looking at about the same time. */
const CONCURRENCY = 8;
/** The webhook's delivery is polled (the emulator's own record of it), up to this long. */
const WEBHOOK_WAIT_MS = 30_000;

export type ChangeCost = {
  /** Backend API calls for the whole fleet, the change's own left out. */
  calls: number;
  views: number;
  statuses: Statuses;
  /** Views of the organization's home still showing the name from before a rename. */
  stale?: number;
};
export type ChangeCosts = { rename: ChangeCost; membership: ChangeCost; throwaway: ChangeCost };

type Viewer = { cookie: string };

/** Runs on a fleet with Clerk's webhooks, after its own measurements (it adds an organization of 20). */
export async function changeCosts({ clerk, instances, bapi }: Stack): Promise<ChangeCosts> {
  const team = await Promise.all(
    Array.from({ length: PEOPLE }, (_, i) => newPerson(bapi, i === 0 ? "admin" : "member")),
  );
  const org = (await bapi("POST", "/v1/organizations", { name: "Changes", created_by: team[0]!.id })).body as {
    id: string;
    slug: string;
  };
  for (const person of team.slice(1))
    await bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: person.id, role: "org:member" });
  const [newcomer, outsider] = [await newPerson(bapi, "newcomer"), await newPerson(bapi, "outsider")];
  const viewers: Viewer[] = [];
  for (const person of team) {
    const session = await emulatorSession(clerk, person.email, org.id);
    viewers.push({ cookie: session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ") });
  }
  await webhooksDelivered(clerk, WEBHOOK_WAIT_MS);
  const home = `/orgs/${org.slug}`;

  const view = async (viewer: Viewer, origin: string, path: string, statuses: Statuses) => {
    try {
      const res = await fetch(origin + path, { headers: { Cookie: viewer.cookie }, redirect: "manual" });
      const body = await res.text();
      if (res.status !== 200) countStatus(statuses, res.status);
      return body;
    } catch (error) {
      countStatus(statuses, errorKind(error));
      return "";
    }
  };
  const inBatches = async (work: (() => Promise<unknown>)[]) => {
    for (let i = 0; i < work.length; i += CONCURRENCY)
      await Promise.all(work.slice(i, i + CONCURRENCY).map((w) => w()));
  };
  /** Everyone's pages on every instance, not counted: the caches are warm before each change. */
  const warm = () =>
    inBatches(
      viewers.flatMap((viewer) =>
        instances.flatMap((origin) => [home, "/orgs"].map((path) => () => view(viewer, origin, path, {}))),
      ),
    );
  /** The change, its webhook landed, then `paths` viewed by each person, person i's first page on instance i, the next on i + 1… */
  const measure = async (change: () => Promise<number>, paths: string[], fresh?: string): Promise<ChangeCost> => {
    await warm();
    const before = await backendCalls(clerk);
    const own = await change();
    await webhooksDelivered(clerk, WEBHOOK_WAIT_MS);
    const statuses: Statuses = {};
    let stale = 0;
    await inBatches(
      viewers.flatMap((viewer, i) =>
        paths.map((path, p) => async () => {
          const body = await view(viewer, instances[(i * paths.length + p) % instances.length]!, path, statuses);
          if (fresh && path === home && !body.includes(fresh)) stale += 1;
        }),
      ),
    );
    const calls = (await backendCalls(clerk)) - before - own;
    return { calls, views: viewers.length * paths.length, statuses, ...(fresh ? { stale } : {}) };
  };

  const newName = `Changes renamed ${Date.now().toString(36)}`;
  const rename = await measure(
    async () => (await bapi("PATCH", `/v1/organizations/${org.id}`, { name: newName }), 1),
    ["/orgs", home],
    newName,
  );
  const membership = await measure(
    async () => (
      await bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: newcomer.id, role: "org:member" }),
      1
    ),
    ["/orgs", home],
  );
  const throwaway = await measure(async () => {
    const made = await bapi("POST", "/v1/organizations", { name: "Throwaway", created_by: outsider.id });
    await bapi("DELETE", `/v1/organizations/${made.body.id as string}`);
    return 2;
  }, ["/orgs"]);
  return { rename, membership, throwaway };
}

const verdict = (calls: number, target: number) => (calls <= target ? "met" : "missed");

/** One line per change: its calls for the whole fleet, against its target. */
export function changeLines(name: string, { rename, membership, throwaway }: ChangeCosts): string[] {
  const views = (cost: ChangeCost) =>
    `${cost.views} views by ${PEOPLE} people over every instance, not 200: ${describeStatuses(cost.statuses)}`;
  return [
    `Changes in Clerk, ${name}: rename: ${rename.calls} calls for the fleet (target ≤ 1: ${verdict(rename.calls, 1)}; ${views(rename)}; ${rename.stale} of ${PEOPLE} organization homes still showed the old name).`,
    `Changes in Clerk, ${name}: membership change: ${membership.calls} calls for the fleet (target ≤ 1: ${verdict(membership.calls, 1)}; ${views(membership)}).`,
    `Changes in Clerk, ${name}: someone else's throwaway organization created and deleted: ${throwaway.calls} calls for 20 other people's warm /orgs (target 0: ${verdict(throwaway.calls, 0)}; ${views(throwaway)}).`,
  ];
}

/** The views after the three changes that were not 200, by kind. */
export const changeFailures = ({ rename, membership, throwaway }: ChangeCosts) =>
  [rename, membership, throwaway].reduce((all, cost) => addFailures(all, cost.statuses), {} as Failures);
