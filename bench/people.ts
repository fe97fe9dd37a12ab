/**
 * The bench's people: signed-in members of organizations made through the
 * Clerk stand-in's Backend API, as real traffic comes from many people, not
 * one. One person's load meets that person's own allowances (60 Clerk calls
 * a minute, docs/security.md "Who pays"), which a whole phase's load from
 * one cookie would measure instead of the server.
 */
import { backendApi, newPerson } from "../tests/support/emulator-api";
import { emulatorSession } from "../tests/support/session";

export type Person = { cookie: string; orgSlug: string; admin: boolean };
export type Organization = { id: string; slug: string; adminId: string };

/** `organizations` organizations of `perOrganization` people each (the first its admin), each signed in with it active. */
export async function signUpPeople(
  clerk: string,
  bapi: ReturnType<typeof backendApi>,
  {
    organizations: count,
    perOrganization,
    name = "Bench",
  }: { organizations: number; perOrganization: number; name?: string },
): Promise<{ people: Person[]; organizations: Organization[] }> {
  const people: Person[] = [];
  const organizations: Organization[] = [];
  for (let o = 0; o < count; o++) {
    const team = await Promise.all(
      Array.from({ length: perOrganization }, (_, i) => newPerson(bapi, i === 0 ? "admin" : "member")),
    );
    const org = (await bapi("POST", "/v1/organizations", { name: `${name} ${o}`, created_by: team[0]!.id })).body;
    await Promise.all(
      team
        .slice(1)
        .map((p) => bapi("POST", `/v1/organizations/${org.id}/memberships`, { user_id: p.id, role: "org:member" })),
    );
    organizations.push({ id: org.id, slug: org.slug, adminId: team[0]!.id });
    for (const [i, person] of team.entries()) {
      const session = await emulatorSession(clerk, person.email, org.id);
      const cookie = session.cookies.map(({ name, value }) => `${name}=${value}`).join("; ");
      people.push({ cookie, orgSlug: org.slug, admin: i === 0 });
    }
  }
  return { people, organizations };
}
