/**
 * Stalled bodies (issue 67, finding 5): one instance reached directly, no
 * buffering proxy in front, and clients that open requests whose bodies never
 * finish. Before the fix, 64 such bodies to /webhooks/clerk had all six of
 * Clerk's deliveries of a removal answered 503, and 256 to a form had every
 * person's form answered 503. The instance is in keys mode against the Clerk
 * stand-in (as production runs), all on loopback; clients are told apart by
 * X-Forwarded-For, which it trusts from loopback.
 *
 * Each attack in turn opens its bodies (each sends its head and first 512
 * bytes; half then stall, which the minimum rate cuts, half drip 1 KB a
 * second, above it, and are held until the 15 s request time-out). Once they
 * are all open, for 16 s (WINDOW), Clerk delivers a membership removal six times
 * (the same message, as Svix retries it) and other people send the theme
 * form. Then what the attackers got, what the others got, and the instance's
 * resident memory before the attack and at its peak during.
 */
import type { ChildProcess } from "node:child_process";
import { once } from "node:events";
import { setTimeout as sleep } from "node:timers/promises";
import { connected, drip, rssMb, stalledPost, type Answer, type StalledPost } from "../tests/support/stalled-bodies";
import { MINIMUM_BODY_RATE } from "../server/body-arrival";
import { newWebhookSecret, signedWebhook } from "../tests/support/webhooks";
import { all, allWere, answer, byStatus, met } from "./fair-share";
import { startApp, startClerk, stopAll, url, waitFor } from "./servers";
import { countStatus, type Statuses } from "./stack";

const KB = 1024;
/** The attackers' bodies: the largest each route takes (server/request-bodies.ts), of which the head's packet carries the first bytes. */
const BODY = { webhook: 64 * KB, form: 16 * KB, firstBytes: 512 };
/** What the dripping half keeps sending: twice the floor, and never all of a body before the request time-out. */
const DRIP_BYTES_PER_SECOND = 2 * MINIMUM_BODY_RATE.bytesPerSecond;
/**
 * What Clerk and the others do once the attack is open, for `ms` (past the
 * 15 s request time-out, so every attacker's body is over by its end): Clerk
 * delivers the removal `deliveries` times, and `people` send a form each, each
 * every `formEveryMs`.
 */
const WINDOW = { ms: 16_000, deliveries: 6, deliveryEveryMs: 2_000, people: 8, formEveryMs: 2_000 };
/** Clerk's webhooks come from Svix's addresses, not the attackers'. */
const SVIX_ADDRESS = "192.0.2.250";
/** The removal Clerk delivers: an admin's membership (Grace's, of The Difference Engine). */
const REMOVAL = {
  type: "organizationMembership.deleted",
  data: {
    object: "organization_membership",
    id: "orgmem_bench_removal",
    organization: { id: "org_seed_difference", object: "organization" },
    public_user_data: { user_id: "user_seed_grace" },
  },
};

/** What the warm-up's webhooks change: an organization's name, to the one it has. */
const WARM_WEBHOOK = {
  type: "organization.updated",
  data: { id: "org_seed_engines", object: "organization", name: "Analytical Engines" },
};

type Instance = { port: number; child: ChildProcess };

type Attack = {
  name: string;
  /** The finding's figures, before the fix. */
  before: string;
  /** Its bodies, opened on `port`. */
  open(port: number): StalledPost[];
};

const nowSeconds = () => Math.floor(Date.now() / 1000);
/** Svix's three headers with a timestamp of now, the signature made up (it covers a body that never comes). */
const svixLooking = () => ({
  "svix-id": `msg_${Math.random().toString(36).slice(2)}`,
  "svix-timestamp": String(nowSeconds()),
  "svix-signature": "v1,bm90IGEgcmVhbCBzaWduYXR1cmUgYXQgYWxs",
});

/** `count` bodies from each of `addresses`, made by `body(address, i)`. */
const fromEach = (addresses: string[], count: number, body: (address: string, i: number) => StalledPost) =>
  addresses.flatMap((address) => Array.from({ length: count }, (_, i) => body(address, i)));
const forms = (port: number) => (client: string) =>
  stalledPost({ port }, { path: "/resources/theme", client, declared: BODY.form, sent: BODY.firstBytes });

const ATTACKS: Attack[] = [
  {
    name: "(a) 64 stalled 64 KB bodies to /webhooks/clerk from 2 addresses, half of each address's with Svix-looking headers (timestamp now, signature made up)",
    before: "the removal's 6 deliveries all 503 Busy; the removed admin kept the admin view for 290 s",
    open: (port) =>
      fromEach(["198.18.1.1", "198.18.1.2"], 32, (client, i) =>
        stalledPost(
          { port },
          {
            path: "/webhooks/clerk",
            client,
            declared: BODY.webhook,
            sent: BODY.firstBytes,
            type: "application/json",
            headers: i % 2 === 0 ? svixLooking() : {},
          },
        ),
      ),
  },
  {
    name: "(b) 256 stalled 16 KB form bodies (POST /resources/theme) from 4 addresses",
    before: "every person's form on that instance 503",
    open: (port) =>
      fromEach(
        Array.from({ length: 4 }, (_, a) => `198.18.2.${a + 1}`),
        64,
        forms(port),
      ),
  },
  {
    name: "(c) the fix's target: 64 addresses × 16 stalled 16 KB form bodies (1,024)",
    before: "— (not measured before the fix)",
    open: (port) =>
      fromEach(
        Array.from({ length: 64 }, (_, a) => `198.19.${a}.1`),
        16,
        forms(port),
      ),
  },
];

export type BodiesRow = {
  attack: Attack;
  /** Bodies the instance held (neither answered nor closed) once all were open. */
  held: number;
  attackers: Statuses;
  deliveries: { statuses: Statuses; ms: number[] };
  others: Statuses;
  rss: { before: number; peak: number; after: number };
};

/** What an attacker's body got: the status and the page's title ("408 Too slow"), Node's bare 408 at the time-out, or none. */
function attackerOutcome(answered: Answer | null): string {
  if (answered === null) return "held past the window";
  if (answered.status === "closed") return "closed without an answer";
  const title = /<h1>([^<]*)<\/h1>/.exec(answered.text)?.[1];
  if (title) return `${answered.status} ${title}`;
  return answered.status === 408 ? "408 at the 15 s request time-out" : String(answered.status);
}

/** Clerk's deliveries of the removal, spread over the window, each signed afresh: their statuses and times. */
async function deliverRemoval(origin: string, secret: string) {
  const id = `msg_bench_removal_${Date.now().toString(36)}`;
  const deliveries = { statuses: {} as Statuses, ms: [] as number[] };
  for (let n = 0; n < WINDOW.deliveries; n += 1) {
    const { body, headers } = signedWebhook(secret, REMOVAL, { id });
    const started = performance.now();
    const status = await answer(`${origin}/webhooks/clerk`, {
      method: "POST",
      headers: { ...headers, "X-Forwarded-For": SVIX_ADDRESS },
      body,
      signal: AbortSignal.timeout(WINDOW.ms),
    });
    countStatus(deliveries.statuses, status);
    if (status === 200) deliveries.ms.push(performance.now() - started);
    await sleep(WINDOW.deliveryEveryMs);
  }
  return deliveries;
}

/** The others (the first signed in, the rest anonymous, each from an address of their own) sending the theme form through the window. */
async function othersPost(origin: string, cookie: string, firstAddress: number) {
  const statuses: Statuses = {};
  const ends = Date.now() + WINDOW.ms;
  await Promise.all(
    Array.from({ length: WINDOW.people }, async (_, i) => {
      await sleep((i * WINDOW.formEveryMs) / WINDOW.people);
      for (let n = 0; Date.now() < ends; n += 1) {
        const started = Date.now();
        const theme = ["light", "dark", "system"][n % 3]!;
        countStatus(
          statuses,
          await answer(`${origin}/resources/theme`, {
            method: "POST",
            headers: {
              "Content-Type": "application/x-www-form-urlencoded",
              Origin: origin,
              "X-Forwarded-For": `192.0.2.${firstAddress + i}`,
              ...(i === 0 ? { Cookie: cookie } : {}),
            },
            body: new URLSearchParams({ theme, redirectTo: "/" }).toString(),
            signal: AbortSignal.timeout(WINDOW.ms),
          }),
        );
        await sleep(Math.max(0, WINDOW.formEveryMs - (Date.now() - started)));
      }
    }),
  );
  return statuses;
}

/**
 * The bodies the instance holds once every refusal has come (at once, but a
 * busy machine takes a while to answer a thousand): the count still
 * unanswered, once steady for half a second (within 4 s, before the floor
 * cuts the stalled ones).
 */
async function heldOnceRefused(bodies: StalledPost[]): Promise<number> {
  const ends = Date.now() + 4_000;
  for (let last = -1; ;) {
    await sleep(500);
    const held = bodies.filter((p) => p.answered === null).length;
    if (held === last || Date.now() > ends) return held;
    last = held;
  }
}

async function attackRow(
  attack: Attack,
  instance: Instance,
  others: { origin: string; cookie: string; secret: string; firstAddress: number },
): Promise<BodiesRow> {
  const before = rssMb(instance);
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, rssMb(instance))), 250);
  const bodies = attack.open(instance.port);
  const stopDrip = drip(
    bodies.filter((_, i) => i % 4 >= 2),
    DRIP_BYTES_PER_SECOND,
  );
  try {
    await connected(bodies);
    const held = await heldOnceRefused(bodies);
    const [deliveries, othersStatuses] = await Promise.all([
      deliverRemoval(others.origin, others.secret),
      othersPost(others.origin, others.cookie, others.firstAddress),
    ]);
    const attackers: Statuses = {};
    for (const post of bodies) countStatus(attackers, attackerOutcome(post.answered));
    return {
      attack,
      held,
      attackers,
      deliveries,
      others: othersStatuses,
      rss: { before, peak, after: 0 },
    };
  } finally {
    stopDrip();
    for (const post of bodies) post.socket.destroy();
    clearInterval(sampler);
  }
}

/** Waits up to `ms` for a child to exit after SIGTERM, then kills it. */
async function stopWithin(child: ChildProcess, ms: number) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = once(child, "exit").then(() => true);
  child.kill("SIGTERM");
  // The timer holds nothing open: the bench ends as soon as the child has.
  const late = sleep(ms, false, { ref: false });
  if (!(await Promise.race([exited, late]))) child.kill("SIGKILL");
}

/**
 * Warm: the form's and the webhook's code, and what opening and closing a
 * thousand connections costs the process whatever they send (here: bodies
 * larger than a form takes, refused at once with 413), are not what is measured.
 */
async function warm(instance: Instance, origin: string, secret: string) {
  for (let i = 0; i < 5; i += 1) {
    await answer(`${origin}/resources/theme`, {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", Origin: origin, "X-Forwarded-For": "192.0.2.1" },
      body: "theme=system&redirectTo=%2F",
    });
    const { body, headers } = signedWebhook(secret, WARM_WEBHOOK);
    await answer(`${origin}/webhooks/clerk`, {
      method: "POST",
      headers: { ...headers, "X-Forwarded-For": SVIX_ADDRESS },
      body,
    });
  }
  for (let a = 0; a < 64; a += 1) {
    const refused = Array.from({ length: 16 }, () =>
      stalledPost(instance, {
        path: "/resources/theme",
        client: `198.20.${a}.1`,
        declared: BODY.form + 1,
        sent: BODY.firstBytes,
      }),
    );
    await Promise.all(refused.map((p) => p.closed));
  }
}

/** One instance in keys mode against the Clerk stand-in, on `basePort` + 1; the attacks in turn; everything stopped at the end. */
export async function bodiesRun(basePort: number): Promise<BodiesRow[]> {
  const clerk = await startClerk(basePort);
  const secret = newWebhookSecret();
  const port = basePort + 1;
  const instance: Instance = { port, child: startApp(port, { ...clerk.keys, CLERK_WEBHOOK_SIGNING_SECRET: secret }) };
  const origin = url(port, "");
  try {
    await waitFor(url(port, "/healthz"));
    await warm(instance, origin, secret);
    const rows: BodiesRow[] = [];
    for (const [n, attack] of ATTACKS.entries()) {
      const others = { origin, cookie: clerk.cookie, secret, firstAddress: 10 + n * 10 };
      const row = await attackRow(attack, instance, others);
      // Once its sockets are closed and the instance has let go of them.
      await sleep(2_000);
      row.rss.after = rssMb(instance);
      rows.push(row);
    }
    return rows;
  } finally {
    await stopWithin(instance.child, 10_000);
    stopAll();
  }
}

const ms = (values: number[]) =>
  values.length === 0 ? "" : `, in ${Math.min(...values).toFixed(0)}–${Math.max(...values).toFixed(0)} ms`;

/** The report: one line per attack. */
export function bodiesLines(rows: BodiesRow[]): string[] {
  return [
    `| Stalled bodies (issue 67, finding 5): one instance reached directly (no proxy), keys mode; each address's bodies send their first ${BODY.firstBytes} bytes, then half stall and half drip ${DRIP_BYTES_PER_SECOND.toLocaleString("en")} B/s | the attackers' bodies, by answer | held once all were open | Clerk's ${WINDOW.deliveries} deliveries of a membership removal, ${WINDOW.deliveryEveryMs / 1000} s apart (target: applied, 200) | the others' theme forms (${WINDOW.people} people, 1 signed in, each one every ${WINDOW.formEveryMs / 1000} s for ${WINDOW.ms / 1000} s; target all 303) | RSS before → peak during → after (MB) | before the fix (issue 67) |`,
    "| --- | --- | ---: | --- | --- | --- | --- |",
    ...rows.map(
      (r) =>
        `| ${r.attack.name} | ${all(r.attackers).toLocaleString("en")}: ${byStatus(r.attackers)} | ${r.held} | ${byStatus(r.deliveries.statuses)}${ms(r.deliveries.ms)} (${met(allWere(r.deliveries.statuses, "200"))}) | ${all(r.others)}: ${byStatus(r.others)} (${met(allWere(r.others, "303"))}) | ${r.rss.before.toFixed(0)} → ${r.rss.peak.toFixed(0)} → ${r.rss.after.toFixed(0)} | ${r.attack.before} |`,
    ),
  ];
}
