import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import * as Callout from "@radix-ui/themes/components/callout";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link, useActionData, useLoaderData } from "@remix-run/react";
import { AcceptInvitation } from "~/components/accept-invitation";
import { EntityAvatar } from "~/components/entity-avatar";
import { RoleBadge } from "~/components/role-badge";
import { requireUserId } from "~/lib/clerk/auth.server";
import { readFormData } from "~/lib/http/forms.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { isUnavailable, refusalMessage } from "~/lib/upstream/refusals.server";
import { listMyOrganizationsWithout } from "~/lib/orgs/memberships.server";
import { acceptMyInvitation, openInvitations } from "~/lib/orgs/my-invitations.server";
import { readInvitationId } from "~/lib/orgs/org-forms.server";
import { leftOrganization, orgPath, roleLabel, type MyInvitation } from "~/lib/orgs/organizations";
import { invitationsOrNull } from "~/lib/orgs/switcher.server";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Your organizations — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  const userId = await requireUserId(args);
  const gone = leftOrganization(new URL(args.request.url).searchParams);
  const [organizations, invitations] = await Promise.all([
    listMyOrganizationsWithout(args.context, userId, gone),
    invitationsOrNull(args.request, args.context, userId),
  ]);
  return { organizations, invitations: openInvitations(invitations, organizations) };
}

/**
 * Accepts an invitation waiting for the signed-in person and opens its
 * organization: the Accept forms of this page and of the switcher post here.
 */
export async function action(args: ActionFunctionArgs) {
  const userId = await requireUserId(args);
  await enforceRateLimit(args.context, "accept-invitation", userId);
  const invitationId = readInvitationId(await readFormData(args.request));
  const refuse = (message: string, status: number) => json({ invitationId, message }, { status });
  if (!invitationId) return refuse("That is not an invitation to an organization.", 400);
  try {
    const invitation = await acceptMyInvitation(args.context, userId, invitationId);
    if (!invitation) {
      return refuse("That invitation is no longer open: it was revoked, has expired or was already accepted.", 404);
    }
    return redirect(orgPath({ id: invitation.orgId, slug: invitation.slug }), 303);
  } catch (error) {
    if (!isUnavailable(error)) throw error;
    const retryAfter = error.headers.get("Retry-After") ?? "5";
    return json(
      { invitationId, message: `The invitation was not accepted. ${refusalMessage(error)}` },
      { status: error.status, headers: { "Retry-After": retryAfter } },
    );
  }
}

export default function Organizations() {
  const { organizations, invitations } = useLoaderData<typeof loader>();
  const refused = useActionData<typeof action>();
  return (
    <Flex direction="column" gap="5">
      <Flex justify="between" align="end" gap="4" wrap="wrap">
        <div>
          <Heading as="h1" size="8">
            Your organizations
          </Heading>
          <Text as="p" size="3" color="gray" mt="2">
            {organizations.length > 0
              ? "Choose an organization to work in."
              : invitations?.length
                ? "You don't belong to an organization yet. Accept an invitation below, or create one."
                : "You don't belong to an organization yet. Create one, or ask a colleague to invite you."}
          </Text>
        </div>
        <Button asChild size="3">
          <Link to="/orgs/new">Create organization</Link>
        </Button>
      </Flex>
      {refused ? (
        <Callout.Root color="red" role="alert" data-testid="invitation-error">
          <Callout.Text>{refused.message}</Callout.Text>
        </Callout.Root>
      ) : null}
      {invitations === null ? (
        <Text as="p" size="2" color="gray" role="status">
          Invitations waiting for you could not be loaded just now. Try again in a moment.
        </Text>
      ) : invitations.length > 0 ? (
        <Invitations invitations={invitations} />
      ) : null}
      {organizations.length > 0 ? (
        <ul className="card-list" aria-label="Your organizations">
          {organizations.map((org) => (
            <li key={org.id}>
              <Card asChild size="2">
                <Link to={orgPath(org)} className="org-card" data-testid="org-choice">
                  <OrgCardFace
                    org={org}
                    detail={
                      org.membersCount === null
                        ? orgPath(org)
                        : `${org.membersCount} ${org.membersCount === 1 ? "member" : "members"}`
                    }
                  />
                  <RoleBadge role={org.role} />
                </Link>
              </Card>
            </li>
          ))}
        </ul>
      ) : null}
    </Flex>
  );
}

/** An organization's logo, name and one line about it, as each card on this page starts. */
function OrgCardFace({ org, detail }: { org: { name: string; imageUrl: string | null }; detail: string }) {
  return (
    <>
      <EntityAvatar name={org.name} imageUrl={org.imageUrl} shape="square" />
      <Flex direction="column" gap="1" className="org-card-text">
        <Text size="3" weight="medium">
          {org.name}
        </Text>
        <Text size="2" color="gray">
          {detail}
        </Text>
      </Flex>
    </>
  );
}

function Invitations({ invitations }: { invitations: MyInvitation[] }) {
  return (
    <section aria-labelledby="invitations-heading">
      <Heading as="h2" size="4" mb="3" id="invitations-heading">
        Invitations
      </Heading>
      <ul className="card-list" aria-labelledby="invitations-heading">
        {invitations.map((invitation) => (
          <li key={invitation.id}>
            <Card size="2" data-testid="invitation">
              <Flex align="center" gap="4">
                <OrgCardFace
                  org={invitation}
                  detail={`You are invited as ${roleLabel(invitation.role).toLowerCase()}`}
                />
                <AcceptInvitation invitation={invitation} size="2" />
              </Flex>
            </Card>
          </li>
        ))}
      </ul>
    </section>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
