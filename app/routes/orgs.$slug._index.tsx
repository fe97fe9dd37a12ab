import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import type { LoaderFunctionArgs } from "@remix-run/node";
import { Link, useLoaderData } from "@remix-run/react";
import { MemberRow } from "~/components/member-row";
import { latestMembers } from "~/lib/orgs/members.server";
import { isAdmin, orgPath, roleLabel } from "~/lib/orgs/organizations";
import { requireOrgMembershipWith } from "~/lib/orgs/require-org.server";

export async function loader(args: LoaderFunctionArgs) {
  const { org, data: latest } = await requireOrgMembershipWith(args, ({ id }) => latestMembers(args.context, id));
  return { org, latest };
}

export default function OrganizationHome() {
  const { org, latest } = useLoaderData<typeof loader>();
  const base = orgPath(org);
  return (
    <Flex direction="column" gap="5">
      <Heading as="h2" size="6">
        Overview
      </Heading>
      <div className="figures">
        <Card size="3">
          <Text as="p" size="2" color="gray">
            Members
          </Text>
          <Text as="p" size="8" weight="bold" data-testid="member-count">
            {latest.total}
          </Text>
        </Card>
        <Card size="3">
          <Text as="p" size="2" color="gray">
            Your role
          </Text>
          <Text as="p" size="6" weight="bold" mt="2">
            {roleLabel(org.role)}
          </Text>
        </Card>
        <Card size="3">
          <Text as="p" size="2" color="gray">
            Address
          </Text>
          <Text as="p" size="3" weight="medium" mt="3" className="mono">
            {base}
          </Text>
        </Card>
      </div>
      <Card size="3">
        <Flex justify="between" align="center" mb="3" gap="3" wrap="wrap">
          <Heading as="h3" size="4">
            Latest members
          </Heading>
          {/* A ghost button's negative margins line its text up with the card's edge: centred, it sits level with its neighbour. */}
          <Flex gap="4" align="center">
            {isAdmin(org.role) ? (
              <Button asChild variant="soft" size="2">
                <Link to={`${base}/members#invite`}>Invite someone</Link>
              </Button>
            ) : null}
            <Button asChild variant="ghost" size="2">
              <Link to={`${base}/members`}>All members</Link>
            </Button>
          </Flex>
        </Flex>
        <ul className="member-list" aria-label="Latest members">
          {latest.members.map((member) => (
            <MemberRow key={member.userId} member={member} />
          ))}
        </ul>
      </Card>
    </Flex>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
