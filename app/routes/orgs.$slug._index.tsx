import { Button, Card, Heading } from "~/components/ui";
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
  // The layout and the figures' text are plain elements in Radix's scale (app.css, `.org-home`):
  // the most viewed page, and each Radix layout component costs the server its props' extraction.
  return (
    <div className="org-home">
      <Heading as="h2" size="6">
        Overview
      </Heading>
      <div className="figures">
        <Card size="3">
          <p className="figure-label">Members</p>
          <p className="figure-value figure-value--count" data-testid="member-count">
            {latest.total}
          </p>
        </Card>
        <Card size="3">
          <p className="figure-label">Your role</p>
          <p className="figure-value figure-value--role">{roleLabel(org.role)}</p>
        </Card>
        <Card size="3">
          <p className="figure-label">Address</p>
          <p className="figure-value figure-value--address mono">{base}</p>
        </Card>
      </div>
      <Card size="3">
        <div className="card-heading-row">
          <Heading as="h3" size="4">
            Latest members
          </Heading>
          {/* A ghost button's negative margins line its text up with the card's edge: centred, it sits level with its neighbour. */}
          <div className="card-heading-actions">
            {isAdmin(org.role) ? (
              <Button asChild variant="soft" size="2">
                <Link to={`${base}/members#invite`}>Invite someone</Link>
              </Button>
            ) : null}
            <Button asChild variant="ghost" size="2">
              <Link to={`${base}/members`}>All members</Link>
            </Button>
          </div>
        </div>
        <ul className="member-list" aria-label="Latest members">
          {latest.members.map((member) => (
            <MemberRow key={member.userId} member={member} />
          ))}
        </ul>
      </Card>
    </div>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
