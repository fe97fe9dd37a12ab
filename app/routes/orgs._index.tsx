import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { EntityAvatar } from "~/components/entity-avatar";
import { RoleBadge } from "~/components/role-badge";
import { requireUserId } from "~/lib/clerk/auth.server";
import { listMyOrganizationsWithout } from "~/lib/orgs/memberships.server";
import { leftOrganization, orgPath } from "~/lib/orgs/organizations";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Your organizations — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  const userId = await requireUserId(args);
  const gone = leftOrganization(new URL(args.request.url).searchParams);
  return { organizations: await listMyOrganizationsWithout(args.context, userId, gone) };
}

export default function Organizations() {
  const { organizations } = useLoaderData<typeof loader>();
  return (
    <Flex direction="column" gap="5">
      <Flex justify="between" align="end" gap="4" wrap="wrap">
        <div>
          <Heading as="h1" size="8">
            Your organizations
          </Heading>
          <Text as="p" size="3" color="gray" mt="2">
            {organizations.length === 0
              ? "You don't belong to an organization yet. Create one, or ask a colleague to invite you."
              : "Choose an organization to work in."}
          </Text>
        </div>
        <Button asChild size="3">
          <Link to="/orgs/new">Create organization</Link>
        </Button>
      </Flex>
      {organizations.length > 0 ? (
        <ul className="card-list" aria-label="Your organizations">
          {organizations.map((org) => (
            <li key={org.id}>
              <Card asChild size="2">
                <Link to={orgPath(org)} className="org-card" data-testid="org-choice">
                  <EntityAvatar name={org.name} imageUrl={org.imageUrl} shape="square" />
                  <Flex direction="column" gap="1" className="org-card-text">
                    <Text size="3" weight="medium">
                      {org.name}
                    </Text>
                    <Text size="2" color="gray">
                      {org.membersCount === null
                        ? orgPath(org)
                        : `${org.membersCount} ${org.membersCount === 1 ? "member" : "members"}`}
                    </Text>
                  </Flex>
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

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
