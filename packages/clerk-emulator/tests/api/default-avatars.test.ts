import { randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { frontendClient, newPerson, newTeam, startInProcessEmulator, TEAM_PASSWORD } from "../../testing";

// A user or organization without an image of its own gets Clerk's default avatar: an address carrying
// base64url JSON {"type":"default","iid","rid","initials"} with has_image false, served by the emulator
// itself (Clerk's is on img.clerk.com, beyond loopback).
const SECRET_KEY = `sk_live_emulator_${randomBytes(12).toString("hex")}`;
let emulator: Awaited<ReturnType<typeof startInProcessEmulator>>;

beforeAll(async () => {
  emulator = await startInProcessEmulator({ secretKey: SECRET_KEY });
});

afterAll(async () => {
  await emulator?.close();
});

const PNG = Buffer.from(
  "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==",
  "base64",
);

/** The JSON a default avatar's address carries, or null when the address is not one. */
function defaultAvatarOf(url: string): Record<string, unknown> | null {
  const match = /\/images\/avatar_placeholder\/([A-Za-z0-9_-]+)$/.exec(url);
  return match ? (JSON.parse(Buffer.from(match[1]!, "base64url").toString()) as Record<string, unknown>) : null;
}

/** Fetches an image the JSON names (a path under the emulator's mount), as a browser would. */
const fetchImage = (url: string) => fetch(`${emulator.origin}${url}`);

describe("default avatars", () => {
  it("gives a user without an image a default avatar with their initials, in both APIs", async () => {
    const person = await newPerson(emulator.bapi, "ada");
    const user = (await emulator.bapi("GET", `/v1/users/${person.id}`)).body;
    expect(user.has_image).toBe(false);
    expect(defaultAvatarOf(user.image_url)).toEqual({
      type: "default",
      iid: "ins_emulator",
      rid: person.id,
      initials: "AT",
    });
    expect(user.profile_image_url).toBe(user.image_url);

    const browser = frontendClient(emulator.origin);
    const signIn = await browser("POST", "/v1/client/sign_ins", { identifier: person.email, password: TEAM_PASSWORD });
    expect(signIn.body.response.status).toBe("complete");
    const me = (await browser("GET", "/v1/me")).body.response;
    expect([me.image_url, me.has_image]).toEqual([user.image_url, false]);
    const session = signIn.body.client.sessions[0];
    expect([session.public_user_data.image_url, session.public_user_data.has_image]).toEqual([user.image_url, false]);

    const served = await fetchImage(user.image_url);
    expect([served.status, served.headers.get("content-type")]).toEqual([200, "image/svg+xml"]);
    const svg = await served.text();
    expect(svg).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
    expect(svg).toContain(">AT</text>");
    expect(served.headers.get("content-security-policy")).toBe("default-src 'none'");
  });

  it("follows the user's name, and leaves the initials out when there is none", async () => {
    const person = await newPerson(emulator.bapi, "grace");
    const renamed = (await emulator.bapi("PATCH", `/v1/users/${person.id}`, { first_name: "Lin", last_name: "" })).body;
    expect(defaultAvatarOf(renamed.image_url)?.initials).toBe("L");
    const nameless = (await emulator.bapi("PATCH", `/v1/users/${person.id}`, { first_name: "" })).body;
    expect(defaultAvatarOf(nameless.image_url)).toEqual({ type: "default", iid: "ins_emulator", rid: person.id });
    const svg = await (await fetchImage(nameless.image_url)).text();
    expect(svg).not.toContain("<text");
  });

  it("switches to the uploaded image and back", async () => {
    const person = await newPerson(emulator.bapi, "upload");
    const form = new FormData();
    form.append("file", new Blob([new Uint8Array(PNG)], { type: "image/png" }), "me.png");
    const uploaded = await fetch(`${emulator.origin}/__clerk/api/v1/users/${person.id}/profile_image`, {
      method: "POST",
      headers: { Authorization: `Bearer ${SECRET_KEY}` },
      body: form,
    });
    const withImage = (await uploaded.json()) as { image_url: string; has_image: boolean };
    expect(withImage.has_image).toBe(true);
    expect(defaultAvatarOf(withImage.image_url)).toBeNull();
    expect((await fetchImage(withImage.image_url)).headers.get("content-type")).toBe("image/png");
    const removed = (await emulator.bapi("DELETE", `/v1/users/${person.id}/profile_image`)).body;
    expect([removed.has_image, defaultAvatarOf(removed.image_url)?.rid]).toEqual([false, person.id]);
  });

  it("gives an organization without a logo a default avatar with its initial, and its members theirs", async () => {
    const team = await newTeam(emulator.bapi, { members: 1 });
    const org = (await emulator.bapi("GET", `/v1/organizations/${team.org.id}`)).body;
    expect(org.has_image).toBe(false);
    expect(defaultAvatarOf(org.image_url)).toEqual({
      type: "default",
      iid: "ins_emulator",
      rid: team.org.id,
      initials: "T",
    });
    const memberships = (await emulator.bapi("GET", `/v1/organizations/${team.org.id}/memberships`)).body.data;
    const member = memberships.find(
      (m: { public_user_data: { user_id: string } }) => m.public_user_data.user_id === team.members[0]!.id,
    );
    expect(member.public_user_data.has_image).toBe(false);
    expect(defaultAvatarOf(member.public_user_data.image_url)?.rid).toBe(team.members[0]!.id);
    expect((await fetchImage(org.image_url)).status).toBe(200);
  });

  it("draws nothing for an address that is not a default avatar's", async () => {
    const notDefault = Buffer.from(JSON.stringify({ type: "proxy", src: "https://example.com/a.png" })).toString(
      "base64url",
    );
    expect((await fetchImage(`/__clerk/images/avatar_placeholder/${notDefault}`)).status).toBe(404);
    expect((await fetchImage(`/__clerk/images/avatar_placeholder/not-json`)).status).toBe(404);
  });
});
