import type { AppLoadContext } from "@remix-run/node";
import { logUnexpectedError } from "../log.server";
import { isUnavailable } from "../upstream/refusals.server";
import { listMyOrganizationsWithout } from "./memberships.server";
import { listMyInvitations } from "./my-invitations.server";
import type { MyInvitation, OrgSummary } from "./organizations";

/** `null` instead of an error: outages are already logged by the upstream path; anything else is logged here. */
async function orNull<T>(request: Request, context: AppLoadContext, route: string, read: Promise<T>) {
  try {
    return await read;
  } catch (error) {
    if (!isUnavailable(error)) logUnexpectedError(request, context.requestId, error, { route });
    return null;
  }
}

/**
 * The switcher's list. Nothing here may take every page (and its theme)
 * down: on failure the switcher falls back to its /orgs link.
 */
export function switcherOrganizations(
  request: Request,
  context: AppLoadContext,
  userId: string,
  goneOrgId: string | null = null,
): Promise<OrgSummary[] | null> {
  return orNull(request, context, "root", listMyOrganizationsWithout(context, userId, goneOrgId));
}

/**
 * The invitations waiting for the person, read alongside their
 * organizations: `null` if they could not be read, which leaves the rest of
 * the page or panel alone.
 */
export function invitationsOrNull(
  request: Request,
  context: AppLoadContext,
  userId: string,
): Promise<MyInvitation[] | null> {
  return orNull(request, context, "invitations", listMyInvitations(context, userId));
}
