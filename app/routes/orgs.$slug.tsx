import type { LoaderFunctionArgs, MetaFunction } from "@remix-run/node";
import { Outlet, useLoaderData } from "@remix-run/react";
import { OrgHeader } from "~/components/org-header";
import { useActiveOrganization } from "~/hooks/use-active-organization";
import { requireOrgMembership } from "~/lib/orgs/require-org.server";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `${data.org.name} — Teamwork` : "Organization — Teamwork" },
  NOT_INDEXED,
];

export async function loader(args: LoaderFunctionArgs) {
  const { org } = await requireOrgMembership(args);
  return { org };
}

export default function OrganizationLayout() {
  const { org } = useLoaderData<typeof loader>();
  useActiveOrganization(org.id);
  return (
    <>
      <OrgHeader org={org} />
      <Outlet />
    </>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
