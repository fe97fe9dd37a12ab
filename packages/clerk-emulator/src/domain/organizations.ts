import { ApiError } from "./errors";
import { creatorRoleKey } from "./roles";
import type { OrgRecord, Store } from "../state/store";

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

/** A rename or a new slug (what is not sent stays), under the same rules as a new organization. */
export function updateOrganization(store: Store, org: OrgRecord, input: { name: string | null; slug: string | null }) {
  const name = input.name === null ? org.name : validateName(input.name);
  const slug =
    input.slug === null || !store.settings.organizationSlugs ? org.slug : validateSlug(store, input.slug.trim(), org);
  org.name = name;
  org.slug = slug;
  org.updatedAt = Date.now();
  store.changed();
  return org;
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

export function createOrganizationFor(
  store: Store,
  userId: string | null,
  input: { name: string; slug: string | null },
) {
  return store.createOrganization({
    name: input.name,
    slug: input.slug,
    createdBy: userId,
    creatorRole: creatorRoleKey(store),
  });
}
