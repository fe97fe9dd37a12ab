import { ApiError } from "./errors";
import { findRole, isCreatorEligible } from "./roles";
import type { DeepReadonly, InstanceRecord, RoleRecord, Store } from "../state/store";

/**
 * The instance's settings (`/v1/instance…`), changed as the Backend API asks:
 * each change replaces the setting's object whole and tells the listeners
 * once, even when nothing in it differs (as the routes always did).
 */
type InstanceSettings = InstanceRecord["settings"];
type OrganizationSettings = InstanceRecord["organizationSettings"];

const invalid = (param: string, why: string) => new ApiError(422, "form_param_value_invalid", "is invalid", param, why);

/** `PATCH /v1/instance` (and the deprecated `PATCH /v1/beta_features/instance_settings`): the fields given. */
export function changeInstanceSettings(store: Store, changes: Partial<InstanceSettings>): InstanceSettings {
  return store.write((state) => (state.instance.settings = { ...state.instance.settings, ...changes }));
}

/** A role a setting names by id (`role_admin`…, as `GET /v1/organization_roles` lists them) or by key; `param` names it in the refusal. */
export function settingRole(store: Store, idOrKey: string, param: string): DeepReadonly<RoleRecord> {
  const role = findRole(store, idOrKey);
  if (!role) throw new ApiError(422, "resource_not_found", "Role not found", param, `No role ${idOrKey}.`);
  return role;
}

/** The role new organizations' creators get: it must be able to manage the organization (Clerk's creator role rule). */
export function creatorRole(store: Store, idOrKey: string): DeepReadonly<RoleRecord> {
  const role = settingRole(store, idOrKey, "creator_role_id");
  if (!isCreatorEligible(store, role)) {
    throw new ApiError(
      422,
      "organization_missing_creator_role_permissions",
      "The creator role lacks the permissions to manage the organization.",
      "creator_role_id",
    );
  }
  return role;
}

/**
 * `PATCH /v1/instance/organization_settings`: the fields given, and Clerk's
 * instance-wide slug switch (`organizationSlugs`), which holds for this
 * process, as the `CLERK_EMULATOR_ORG_SLUGS` setting it overrides.
 */
export function changeOrganizationSettings(
  store: Store,
  changes: Partial<OrganizationSettings>,
  organizationSlugs?: boolean,
): OrganizationSettings {
  return store.write((state) => {
    if (organizationSlugs !== undefined) store.settings.organizationSlugs = organizationSlugs;
    return (state.instance.organizationSettings = { ...state.instance.organizationSettings, ...changes });
  });
}

/** The countries whose phone numbers the instance refuses: uppercase ISO 3166-1 alpha-2 codes, each once, at most 250. */
export function blockCountryCodes(store: Store, codes: string[]): string[] {
  const wrong = codes.find((c) => !/^[A-Z]{2}$/.test(c));
  if (wrong) throw invalid("blocked_country_codes", `${wrong} is not an uppercase ISO 3166-1 alpha-2 code.`);
  if (new Set(codes).size !== codes.length) throw invalid("blocked_country_codes", "Codes must be unique.");
  if (codes.length > 250) throw invalid("blocked_country_codes", "At most 250 codes.");
  return store.write((state) => (state.instance.blockedCountryCodes = codes));
}

export function changeProtectSettings(
  store: Store,
  changes: Partial<InstanceRecord["protect"]>,
): InstanceRecord["protect"] {
  return store.write((state) => (state.instance.protect = { ...state.instance.protect, ...changes }));
}

export function changeOAuthApplicationSettings(
  store: Store,
  changes: Record<string, unknown>,
): Record<string, unknown> {
  return store.write(
    (state) => (state.instance.oauthApplicationSettings = { ...state.instance.oauthApplicationSettings, ...changes }),
  );
}

/** The production domain's home, as `POST /v1/instance/change_domain` sets it: an origin. */
export function changeHomeUrl(store: Store, origin: string): void {
  store.write((state) => {
    state.instance.homeUrl = origin;
  });
}
