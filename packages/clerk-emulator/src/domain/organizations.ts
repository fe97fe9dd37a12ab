import { ApiError } from "./errors";
import { creatorRoleKey } from "./roles";
import { mergeMetadata } from "./metadata";
import type { Metadata, OrgRecord, Store } from "../state/store";

/** What an organization's create or update may set besides its name and slug (the Backend API's). */
export type OrganizationFields = Partial<
  Pick<OrgRecord, "publicMetadata" | "privateMetadata" | "maxAllowedMemberships" | "createdAt">
>;

/** An image as uploaded, to become an organization's logo. */
export type LogoUpload = { name: string; contentType: string; bytes: Buffer };

function validateName(rawName: string | null): string {
  const name = (rawName ?? "").trim();
  if (!name) throw new ApiError(422, "form_param_missing", "Enter a name for the organization.", "name");
  if (name.length > 256) throw new ApiError(422, "form_param_exceeds_allowed_size", "Name is too long.", "name");
  return name;
}

/** Clerk's slug rules: lowercase letters, digits and single inner dashes, unique in the instance. */
function validateSlug(store: Store, slug: string, except?: OrgRecord): string {
  if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(slug) || slug.includes("--") || slug.startsWith("org_")) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "Slug may contain only lowercase letters, digits and dashes.",
      "slug",
    );
  }
  const holder = store.org(slug);
  if (holder && holder !== except)
    throw new ApiError(422, "form_identifier_exists", "That slug is taken. Please try another.", "slug");
  return slug;
}

/** Clerk's rules for a new organization's name and slug, as its APIs enforce them. */
export function validateOrganizationInput(store: Store, rawName: string | null, rawSlug: string | null) {
  const name = validateName(rawName);
  // With slugs turned off for the instance, Clerk ignores any slug it is sent.
  if (!store.settings.organizationSlugs) return { name, slug: null };
  return { name, slug: validateSlug(store, (rawSlug?.trim() || slugify(name)).toLowerCase()) };
}

/** Clerk's 403 when the instance has organizations turned off (the Frontend API's create). */
export function requireOrganizationsEnabled(store: Store): void {
  if (!store.state.instance.organizationSettings.enabled) {
    throw new ApiError(403, "organization_not_enabled_in_instance", "Organizations are not enabled for this instance.");
  }
}

/**
 * A rename or a new slug (what is not sent stays), under the same rules as a new organization, with the Backend
 * API's other `fields`.
 */
export function updateOrganization(
  store: Store,
  org: OrgRecord,
  input: { name: string | null; slug: string | null },
  fields: OrganizationFields = {},
) {
  const name = input.name === null ? org.name : validateName(input.name);
  const slug =
    input.slug === null || !store.settings.organizationSlugs ? org.slug : validateSlug(store, input.slug.trim(), org);
  return store.write(() => {
    org.name = name;
    org.slug = slug;
    org.updatedAt = Date.now();
    Object.assign(org, fields);
    return org;
  });
}

/** An organization's public and private metadata given: merged into what it has (Clerk's deep merge), or replacing it. */
export function setOrganizationMetadata(
  store: Store,
  org: OrgRecord,
  given: Partial<Record<"public" | "private", Metadata>>,
  merge: boolean,
): OrgRecord {
  return store.write(() => {
    for (const kind of ["public", "private"] as const) {
      const value = given[kind];
      if (value === undefined) continue;
      org[`${kind}Metadata`] = merge ? mergeMetadata(org[`${kind}Metadata`], value) : value;
    }
    org.updatedAt = Date.now();
    return org;
  });
}

/** A new logo; the one it replaces is deleted. */
export function setOrganizationLogo(store: Store, org: OrgRecord, upload: LogoUpload): OrgRecord {
  return store.write(() => {
    const image = store.saveImage(upload);
    store.deleteImage(org.imageId);
    org.imageId = image.id;
    org.updatedAt = Date.now();
    return org;
  });
}

/** Deletes the organization's logo (Clerk's 404 when it has none); returns the deleted image's id. */
export function removeOrganizationLogo(store: Store, org: OrgRecord): string {
  const id = org.imageId;
  if (!id) throw new ApiError(404, "resource_not_found", "This organization has no logo.");
  store.write(() => {
    store.deleteImage(id);
    org.imageId = null;
    org.updatedAt = Date.now();
  });
  return id;
}

/** Clerk's 403 when the instance does not let admins delete their organizations (the Frontend API's delete). */
export function requireAdminDeleteEnabled(store: Store): void {
  if (!store.state.instance.organizationSettings.adminDeleteEnabled) {
    throw new ApiError(
      403,
      "organization_admin_delete_not_enabled",
      "Admins cannot delete organizations in this instance.",
    );
  }
}

/** An organization with its memberships, invitations, membership requests and logo. */
export function deleteOrganization(store: Store, org: OrgRecord): void {
  store.write(() => store.deleteOrganization(org));
}

export function slugify(name: string): string {
  return name
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "")
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "")
    .slice(0, 64);
}

/**
 * A new organization, its creator (if any) its first member with the creator role, with the Backend API's other
 * `fields`: a `createdAt` given is its `updatedAt` too.
 */
export function createOrganizationFor(
  store: Store,
  userId: string | null,
  input: { name: string; slug: string | null },
  fields: OrganizationFields = {},
) {
  return store.write(() => {
    const org = store.createOrganization({
      name: input.name,
      slug: input.slug,
      createdBy: userId,
      creatorRole: creatorRoleKey(store),
    });
    Object.assign(org, fields);
    if (fields.createdAt !== undefined) org.updatedAt = fields.createdAt;
    return org;
  });
}
