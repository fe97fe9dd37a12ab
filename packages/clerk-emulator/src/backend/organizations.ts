import { deletedJSON, membershipJSON, organizationJSON } from "../json";
import { addMember, changeRole, membershipOf, removeMember } from "../domain/memberships";
import { parseRoleKey } from "../domain/roles";
import { parseMetadata } from "../domain/metadata";
import {
  createOrganizationFor,
  deleteOrganization,
  type OrganizationFields,
  removeOrganizationLogo,
  setOrganizationLogo,
  setOrganizationMetadata,
  updateOrganization,
  validateOrganizationInput,
} from "../domain/organizations";
import { ApiError } from "../domain/errors";
import { paginate, str } from "../http/routing";
import { readImageUpload, uploadFormField } from "../http/uploads";
import type { MembershipRecord, Metadata, OrgRecord, Store } from "../state/store";
import { bodyOf, timeOf } from "./body-params";
import type { BackendContext, Route } from "./context";
import { filterList, MEMBERSHIP_LIST, ORGANIZATION_LIST, orderBy } from "./query-params";

/** Clerk's orders for the organizations list (`order_by`). */
const organizationOrders = (store: Store): Record<string, (o: OrgRecord) => string | number> => ({
  name: (o) => o.name.toLowerCase(),
  created_at: (o) => o.createdAt,
  members_count: (o) => store.membershipsOfOrg(o.id).length,
});

/** Clerk's orders for an organization's memberships (`order_by`), by the member's details or the membership's age. */
export const membershipOrders = (store: Store): Record<string, (m: MembershipRecord) => string | number | null> => {
  const user = (m: MembershipRecord) => store.user(m.userId);
  return {
    created_at: (m) => m.createdAt,
    email_address: (m) => user(m)?.email ?? null,
    first_name: (m) => user(m)?.firstName?.toLowerCase() ?? null,
    last_name: (m) => user(m)?.lastName?.toLowerCase() ?? null,
    phone_number: () => null,
    username: () => null,
  };
};

/** The kept fields an organization's create or update gives besides name and slug, checked before anything changes. */
function organizationFields(body: Record<string, unknown>): OrganizationFields {
  const out: OrganizationFields = {};
  for (const kind of ["public", "private"] as const) {
    const value = body[`${kind}_metadata`];
    if (value !== undefined) out[`${kind}Metadata`] = parseMetadata(value, `${kind}_metadata`);
  }
  if (body.max_allowed_memberships !== undefined) {
    const max = Number(body.max_allowed_memberships);
    if (!Number.isInteger(max) || max < 0) {
      throw new ApiError(
        422,
        "form_param_format_invalid",
        "max_allowed_memberships must be a whole number, 0 or more.",
        "max_allowed_memberships",
      );
    }
    out.maxAllowedMemberships = Math.min(max, 1_000_000);
  }
  if (body.created_at !== undefined) out.createdAt = timeOf(body.created_at, "created_at");
  return out;
}

/** A membership's metadata as given at its creation (checked before anything changes). */
function membershipMetadata(
  body: Record<string, unknown>,
): Pick<MembershipRecord, "publicMetadata" | "privateMetadata"> {
  const out: Pick<MembershipRecord, "publicMetadata" | "privateMetadata"> = {};
  for (const kind of ["public", "private"] as const) {
    const value = body[`${kind}_metadata`];
    if (value !== undefined) out[`${kind}Metadata`] = parseMetadata(value, `${kind}_metadata`);
  }
  return out;
}

/** Organizations and their memberships. */
export function registerOrganizationRoutes(route: Route, { store, org }: BackendContext): void {
  route("GET", "/v1/organizations", (req) => {
    const found = filterList(ORGANIZATION_LIST, req, store, store.state.organizations);
    const list =
      req.query.order_by === undefined ? found : orderBy(req, found, organizationOrders(store), "-created_at");
    return paginate(
      list.map((o) => organizationJSON(store, o, "bapi")),
      req.query,
    );
  });
  route("POST", "/v1/organizations", (req) => {
    const createdBy = str(req.body?.created_by);
    if (createdBy && !store.user(createdBy))
      throw new ApiError(422, "resource_not_found", "created_by user not found", "created_by");
    const input = validateOrganizationInput(store, str(req.body?.name), str(req.body?.slug));
    const fields = organizationFields(bodyOf(req.body));
    return organizationJSON(store, createOrganizationFor(store, createdBy, input, fields), "bapi");
  });
  route("GET", "/v1/organizations/:id", (req) => organizationJSON(store, org(req), "bapi"));
  route("PATCH", "/v1/organizations/:id", (req) => {
    const found = org(req);
    const body = bodyOf(req.body);
    const fields = organizationFields(body);
    updateOrganization(store, found, { name: str(body.name), slug: str(body.slug) }, fields);
    return organizationJSON(store, found, "bapi");
  });
  // PATCH merges (Clerk's deep merge); PUT, which Core 3's @clerk/backend (API version 2026-05-12) sends for
  // metadata given to `updateOrganization` and for `replaceOrganizationMetadata`, replaces each field it names.
  const setMetadata = (merge: boolean) => (req: Parameters<Parameters<Route>[2]>[0]) => {
    const found = org(req);
    const given: Partial<Record<"public" | "private", Metadata>> = {};
    for (const kind of ["public", "private"] as const) {
      const value: unknown = req.body?.[`${kind}_metadata`];
      if (value !== undefined) given[kind] = parseMetadata(value, `${kind}_metadata`);
    }
    return organizationJSON(store, setOrganizationMetadata(store, found, given, merge), "bapi");
  };
  route("PATCH", "/v1/organizations/:id/metadata", setMetadata(true));
  route("PUT", "/v1/organizations/:id/metadata", setMetadata(false));
  route("PUT", "/v1/organizations/:id/logo", async (req) => {
    const found = org(req);
    const uploader = await uploadFormField(req, "uploader_user_id");
    if (uploader !== null && !store.user(uploader)) {
      throw new ApiError(404, "resource_not_found", "User not found", "uploader_user_id");
    }
    return organizationJSON(store, setOrganizationLogo(store, found, await readImageUpload(req)), "bapi");
  });
  route("DELETE", "/v1/organizations/:id/logo", (req) => {
    const found = org(req);
    removeOrganizationLogo(store, found);
    return organizationJSON(store, found, "bapi");
  });
  route("DELETE", "/v1/organizations/:id", (req) => {
    const found = org(req);
    deleteOrganization(store, found);
    return deletedJSON("organization", found.id, found.slug ? { slug: found.slug } : {});
  });

  route("GET", "/v1/organizations/:id/memberships", (req) => {
    const found = org(req);
    const members = filterList(MEMBERSHIP_LIST, req, store, store.membershipsOfOrg(found.id));
    // Oldest first unless asked otherwise (the members page lists them in joining order).
    const list = orderBy(req, members, membershipOrders(store), "created_at").map((m) =>
      membershipJSON(store, m, "bapi"),
    );
    return paginate(list, req.query);
  });
  route("POST", "/v1/organizations/:id/memberships", (req) => {
    const found = org(req);
    const userId = str(req.body?.user_id) ?? "";
    const role = parseRoleKey(store, req.body?.role);
    const metadata = membershipMetadata(bodyOf(req.body));
    return membershipJSON(store, addMember(store, found, userId, role, metadata), "bapi");
  });
  route("PATCH", "/v1/organizations/:id/memberships/:userId", (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    return membershipJSON(store, changeRole(store, m, parseRoleKey(store, req.body?.role)), "bapi");
  });
  route("DELETE", "/v1/organizations/:id/memberships/:userId", (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    const json = membershipJSON(store, m, "bapi");
    removeMember(store, m);
    return json;
  });
}
