import { ApiError } from "./routing";
import type { Store } from "./store";

/** Clerk's rules for a new organization's name and slug, as its APIs enforce them. */
export function validateOrganizationInput(store: Store, rawName: string | null, rawSlug: string | null) {
  const name = (rawName ?? "").trim();
  if (!name) throw new ApiError(422, "form_param_missing", "Enter a name for the organization.", "name");
  if (name.length > 256) throw new ApiError(422, "form_param_exceeds_allowed_size", "Name is too long.", "name");
  // With slugs turned off for the instance, Clerk ignores any slug it is sent.
  if (!store.settings.organizationSlugs) return { name, slug: null };
  const slug = (rawSlug?.trim() || slugify(name)).toLowerCase();
  if (!/^[a-z0-9](?:[a-z0-9-]{0,62}[a-z0-9])?$/.test(slug)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "Slug may contain only lowercase letters, digits and dashes.",
      "slug",
    );
  }
  if (store.org(slug))
    throw new ApiError(422, "form_identifier_exists", "That slug is taken. Please try another.", "slug");
  return { name, slug };
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
  return store.createOrganization({ name: input.name, slug: input.slug, createdBy: userId });
}
