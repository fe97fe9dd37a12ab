import { json, type LoaderFunctionArgs } from "@remix-run/node";
import { requireUserId } from "../clerk/auth.server";
import { listMyOrganizations } from "./memberships.server";
import { findOrganization } from "./organizations";

// A slug as Clerk allows it, or an organization id (for organizations without a slug).
const ORG_SEGMENT = /^(?:[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?|org_[A-Za-z0-9]{1,64})$/;

/** The same 404 for an unknown organization and for one you are not in, so nothing leaks. */
export function organizationNotFound(): never {
  throw json({ message: "Not found" }, { status: 404 });
}

/**
 * The organization the URL names (by slug or id), if the signed-in user
 * belongs to it: signed out → redirect to sign-in; not a member or no such
 * organization → 404.
 */
export async function requireOrgMembership(args: LoaderFunctionArgs) {
  const userId = await requireUserId(args);
  const segment = args.params.slug ?? "";
  if (!ORG_SEGMENT.test(segment)) organizationNotFound();
  let organizations = await listMyOrganizations(args.context, userId);
  let org = findOrganization(organizations, segment);
  if (!org) {
    // The list may be this instance's cached copy from before the person
    // joined or created it (on another instance): ask Clerk before a 404.
    organizations = await listMyOrganizations(args.context, userId, { fresh: true });
    org = findOrganization(organizations, segment);
  }
  if (!org) organizationNotFound();
  return { userId, org, organizations };
}
