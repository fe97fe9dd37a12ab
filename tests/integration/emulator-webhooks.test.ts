import { createServer, type Server } from "node:http";
import { verifyWebhook } from "@clerk/backend/webhooks";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { backendApi, newPerson, newTeam, uniqueEmail } from "../support/emulator-api";
import { freePort, startServer, type RunningServer } from "../support/server";
import { newWebhookSecret } from "../support/webhooks";

// The emulator sends Clerk's webhooks for the changes made through its APIs,
// signed as Svix signs Clerk's, to a receiver the test runs on loopback.
const SECRET = newWebhookSecret();
type Received = { id: string; type: string; data: Record<string, unknown> };
const received: Received[] = [];
/** How many times in a row the receiver answers 500 before accepting. */
let failNext = 0;
let receiver: Server;
let server: RunningServer;

beforeAll(async () => {
  const port = await freePort();
  receiver = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const headers = new Headers(req.headers as Record<string, string>);
      const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body });
      void verifyWebhook(request, { signingSecret: SECRET }).then(
        (event) => {
          received.push({
            id: headers.get("svix-id")!,
            type: event.type,
            data: event.data as unknown as Record<string, unknown>,
          });
          res.writeHead(failNext-- > 0 ? 500 : 200).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  }).listen(port, "127.0.0.1");
  server = await startServer({
    CLERK_EMULATOR_WEBHOOK_URL: `http://127.0.0.1:${port}/hooks`,
    CLERK_EMULATOR_WEBHOOK_SECRET: SECRET,
    LOG_LEVEL: "silent",
  });
});
afterAll(async () => {
  await server.stop();
  receiver.close();
});

/** The events received since `from`, once `count` of them have arrived. */
async function eventsSince(from: number, count: number): Promise<Received[]> {
  await expect.poll(() => received.length - from, { timeout: 10_000 }).toBeGreaterThanOrEqual(count);
  return received.slice(from);
}

describe("the emulator's webhooks", () => {
  it("sends each Backend API change as Clerk's event, signed, with the resource as the Backend API shows it", async () => {
    const bapi = backendApi(server.origin, server.dataDir);
    let from = received.length;
    const { org, admin } = await newTeam(bapi);
    const created = await eventsSince(from, 3);
    expect(created.map((e) => e.type)).toEqual(
      expect.arrayContaining(["user.created", "organization.created", "organizationMembership.created"]),
    );
    const membership = created.find((e) => e.type === "organizationMembership.created")!.data;
    expect(membership).toMatchObject({ object: "organization_membership", role: "org:admin" });
    expect(membership.organization).toMatchObject({ id: org.id, name: org.name });
    expect(membership.public_user_data).toMatchObject({ user_id: admin.id });

    from = received.length;
    await bapi("PATCH", `/v1/organizations/${org.id}`, { name: "Renamed by a test" });
    const [renamed] = await eventsSince(from, 1);
    expect(renamed).toMatchObject({ type: "organization.updated", data: { id: org.id, name: "Renamed by a test" } });
    expect((await bapi("GET", `/v1/organizations/${org.id}`)).body).toMatchObject(renamed!.data);

    from = received.length;
    const email = uniqueEmail("invited");
    const invitation = (
      await bapi("POST", `/v1/organizations/${org.id}/invitations`, {
        email_address: email,
        inviter_user_id: admin.id,
        role: "org:member",
      })
    ).body as { id: string };
    await bapi("POST", `/v1/organizations/${org.id}/invitations/${invitation.id}/revoke`, {
      requesting_user_id: admin.id,
    });
    // The invitation's email is an event too (email.created, see emulator-webhook-events.test.ts).
    const sent = await eventsSince(from, 3);
    expect(sent.filter((e) => e.type === "email.created").map((e) => e.data.to_email_address)).toEqual([email]);
    const invitations = sent.filter((e) => e.type.startsWith("organizationInvitation."));
    expect(invitations.map((e) => [e.type, e.data.email_address, e.data.organization_id])).toEqual([
      ["organizationInvitation.created", email, org.id],
      ["organizationInvitation.revoked", email, org.id],
    ]);

    from = received.length;
    const member = await newPerson(bapi, "member");
    await bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: member.id, role: "org:member" });
    await bapi("PATCH", `/v1/users/${member.id}`, { first_name: "Renamed" });
    await bapi("DELETE", `/v1/organizations/${org.id}/memberships/${member.id}`);
    await bapi("DELETE", `/v1/users/${member.id}`);
    const changes = await eventsSince(from, 5);
    expect(changes.map((e) => e.type)).toEqual([
      "user.created",
      "organizationMembership.created",
      "user.updated",
      "organizationMembership.deleted",
      "user.deleted",
    ]);
    expect(changes[3]!.data).toMatchObject({ organization: { id: org.id }, public_user_data: { user_id: member.id } });
    expect(changes[4]!.data).toMatchObject({ id: member.id, deleted: true });
  });

  it("retries a delivery that was not accepted, with the same svix-id", async () => {
    const bapi = backendApi(server.origin, server.dataDir);
    const before = received.length;
    const { org } = await newTeam(bapi);
    await eventsSince(before, 3);
    const from = received.length;
    failNext = 2;
    await bapi("PATCH", `/v1/organizations/${org.id}`, { name: "Retried" });
    const attempts = await eventsSince(from, 3);
    expect(attempts.map((e) => e.type)).toEqual([
      "organization.updated",
      "organization.updated",
      "organization.updated",
    ]);
    expect(new Set(attempts.map((e) => e.id)).size).toBe(1);
    const deliveries = (await (await fetch(`${server.origin}/__clerk/_emulator/webhooks`)).json()) as {
      id: string;
      attempts: number;
      status: string;
    }[];
    expect(deliveries.find((d) => d.id === attempts[0]!.id)).toMatchObject({ attempts: 3, status: "delivered" });
  });

  it("sends nothing when told not to", async () => {
    const quiet = await startServer({ CLERK_EMULATOR_WEBHOOKS: "off", LOG_LEVEL: "silent" });
    try {
      const bapi = backendApi(quiet.origin, quiet.dataDir);
      await newTeam(bapi);
      expect(await (await fetch(`${quiet.origin}/__clerk/_emulator/webhooks`)).json()).toEqual([]);
    } finally {
      await quiet.stop();
    }
  });
});
