import type { AppLoadContext } from "@remix-run/node";
import { logUnexpectedError } from "../log.server";
import { isUnavailable } from "../upstream/request-scope.server";
import { listMyOrganizationsWithout } from "./memberships.server";
import type { OrgSummary } from "./organizations";

/**
 * The root loader's list for the switcher. Nothing here may take every page
 * (and its theme) down: on failure the switcher falls back to its /orgs link.
 * Outages are already logged by the upstream path; anything else is logged here.
 */
export async function switcherOrganizations(
  request: Request,
  context: AppLoadContext,
  userId: string,
  goneOrgId: string | null = null,
): Promise<OrgSummary[] | null> {
  try {
    return await listMyOrganizationsWithout(context, userId, goneOrgId);
  } catch (error) {
    if (!isUnavailable(error)) logUnexpectedError(request, context.requestId, error, { route: "root" });
    return null;
  }
}
