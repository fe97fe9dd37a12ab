import { OrganizationProfile, useAuth } from "@clerk/clerk-react";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useRouteLoaderData } from "@remix-run/react";
import { ClerkFrame } from "~/components/clerk-frame";
import { clerkScreenHandle } from "~/lib/route-handle";
import { useClerkAppearance } from "~/hooks/use-clerk-appearance";
import { useFollowOrganizationChanges } from "~/hooks/use-follow-organization-changes";
import { afterLeavingPath, orgPath, type OrgSummary } from "~/lib/orgs/organizations";
import { requireOrgMembership } from "~/lib/orgs/require-org.server";
import type { loader as orgLoader } from "./orgs.$slug";
import { NOT_INDEXED } from "~/lib/http/meta";

/** Clerk's screen is the page (app/lib/route-handle.ts). */
export const handle = clerkScreenHandle("organizationprofile");

export const meta: MetaFunction = () => [{ title: "Organization settings — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  await requireOrgMembership(args);
  return null;
}

export default function OrganizationSettings() {
  const data = useRouteLoaderData<typeof orgLoader>("routes/orgs.$slug");
  if (!data) return null;
  return <Settings org={data.org} />;
}

function Settings({ org }: { org: OrgSummary }) {
  const appearance = useClerkAppearance();
  const { orgId } = useAuth();
  useFollowOrganizationChanges(org);
  // Clerk's component shows the session's active organization; wait until
  // the layout has made the URL's organization active.
  const ready = orgId === org.id;
  return (
    <ClerkFrame label={`${org.name} settings`} loading={`Loading ${org.name}'s settings…`}>
      {ready ? (
        <OrganizationProfile
          // Clerk's router keeps the path it mounted with: after a slug change, mount it at the new one.
          key={orgPath(org)}
          path={`${orgPath(org)}/settings`}
          routing="path"
          appearance={appearance}
          afterLeaveOrganizationUrl={afterLeavingPath(org.id)}
        />
      ) : null}
    </ClerkFrame>
  );
}
