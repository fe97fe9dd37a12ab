import { OrganizationProfile, useAuth } from "@clerk/remix";
import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { useRouteLoaderData } from "@remix-run/react";
import { ClerkFrame } from "~/components/clerk-frame";
import { useClerkAppearance } from "~/hooks/use-clerk-appearance";
import { orgPath } from "~/lib/orgs/organizations";
import { requireOrgMembership } from "~/lib/orgs/require-org.server";
import type { loader as orgLoader } from "./orgs.$slug";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Organization settings — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  await requireOrgMembership(args);
  return null;
}

export default function OrganizationSettings() {
  const data = useRouteLoaderData<typeof orgLoader>("routes/orgs.$slug");
  const appearance = useClerkAppearance();
  const { orgId } = useAuth();
  if (!data) return null;
  // Clerk's component shows the session's active organization; wait until
  // the layout has made the URL's organization active.
  const ready = orgId === data.org.id;
  return (
    <ClerkFrame label={`${data.org.name} settings`}>
      {ready ? (
        <OrganizationProfile
          path={`${orgPath(data.org)}/settings`}
          routing="path"
          appearance={appearance}
          afterLeaveOrganizationUrl="/orgs"
        />
      ) : null}
    </ClerkFrame>
  );
}
