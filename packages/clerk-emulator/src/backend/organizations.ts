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
import type { BackendContext, Route } from "./context";
import { bodyOf, timeOf, type BodyFields } from "./declarations";
import {
  filterList,
  listParams,
  orderBy,
  type ListSpec,
  includeExclude,
  before,
  after,
  partial,
  userFilters,
  onMember,
} from "./lists";

const NO_ROLE_SETS = {
  refused: "The emulator has no role sets: every organization offers every role of the instance (its GUIDE.md).",
};

export const METADATA: BodyFields = { public_metadata: "kept", private_metadata: "kept" };

/** `GET /v1/organizations`. */
const ORGANIZATION_LIST: ListSpec<OrgRecord> = {
  filters: {
    query: partial((o) => [o.id, o.name, o.slug]),
    user_id: (values, store) => {
      const keep = includeExclude(values, (orgId) => store.membershipsOfOrg(orgId).map((m) => m.userId));
      return (o) => keep(o.id);
    },
    organization_id: (values) => {
      const keep = includeExclude(values, (id) => [id]);
      return (o) => keep(o.id);
    },
  },
  // Every organization the emulator answers carries its members_count; no member is missing.
  options: ["include_members_count", "include_missing_member_with_elevated_permissions", "order_by", "limit", "offset"],
};

/** `GET /v1/organizations/:id/memberships`. */
export const MEMBERSHIP_LIST: ListSpec<MembershipRecord> = {
  filters: {
    ...Object.fromEntries(Object.entries(userFilters()).map(([name, f]) => [name, onMember(f)])),
    user_id: (values) => {
      const keep = includeExclude(values, (id) => [id]);
      return (m) => keep(m.userId);
    },
    role: (values) => (m) => values.includes(m.role),
    created_at_before: onMember(before("created_at_before", (u) => u.createdAt)),
    created_at_after: onMember(after("created_at_after", (u) => u.createdAt)),
  },
  options: ["order_by", "limit", "offset"],
};

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
  route("GET", "/v1/organizations", { query: listParams(ORGANIZATION_LIST) }, (req) => {
    const found = filterList(ORGANIZATION_LIST, req, store, store.state.organizations);
    const list =
      req.query.order_by === undefined ? found : orderBy(req, found, organizationOrders(store), "-created_at");
    return paginate(
      list.map((o) => organizationJSON(store, o, "bapi")),
      req.query,
    );
  });
  route(
    "POST",
    "/v1/organizations",
    {
      body: {
        name: "kept",
        slug: "kept",
        created_by: "kept",
        ...METADATA,
        max_allowed_memberships: "kept",
        created_at: "kept",
        role_set_key: NO_ROLE_SETS,
      },
    },
    (req) => {
      const createdBy = str(req.body?.created_by);
      if (createdBy && !store.user(createdBy))
        throw new ApiError(422, "resource_not_found", "created_by user not found", "created_by");
      const input = validateOrganizationInput(store, str(req.body?.name), str(req.body?.slug));
      const fields = organizationFields(bodyOf(req.body));
      return organizationJSON(store, createOrganizationFor(store, createdBy, input, fields), "bapi");
    },
  );
  route(
    "GET",
    "/v1/organizations/:id",
    { query: ["include_members_count", "include_missing_member_with_elevated_permissions"] },
    (req) => organizationJSON(store, org(req), "bapi"),
  );
  route(
    "PATCH",
    "/v1/organizations/:id",
    {
      body: {
        name: "kept",
        slug: "kept",
        ...METADATA,
        max_allowed_memberships: "kept",
        created_at: "kept",
        admin_delete_enabled: { refused: "The emulator always lets an organization's admins delete it." },
        role_set_key: NO_ROLE_SETS,
      },
    },
    (req) => {
      const found = org(req);
      const body = bodyOf(req.body);
      const fields = organizationFields(body);
      updateOrganization(store, found, { name: str(body.name), slug: str(body.slug) }, fields);
      return organizationJSON(store, found, "bapi");
    },
  );
  // PATCH merges (Clerk's deep merge); PUT, which Core 3's @clerk/backend (API version 2026-05-12) sends for
  // metadata given to `updateOrganization` and for `replaceOrganizationMetadata`, replaces each field it names.
  const setMetadata = (merge: boolean) => (req: Parameters<Parameters<Route>[3]>[0]) => {
    const found = org(req);
    const given: Partial<Record<"public" | "private", Metadata>> = {};
    for (const kind of ["public", "private"] as const) {
      const value: unknown = req.body?.[`${kind}_metadata`];
      if (value !== undefined) given[kind] = parseMetadata(value, `${kind}_metadata`);
    }
    return organizationJSON(store, setOrganizationMetadata(store, found, given, merge), "bapi");
  };
  route("PATCH", "/v1/organizations/:id/metadata", { body: METADATA }, setMetadata(true));
  route("PUT", "/v1/organizations/:id/metadata", { body: METADATA }, setMetadata(false));
  route(
    "PUT",
    "/v1/organizations/:id/logo",
    {
      // A multipart form (http/uploads.ts reads it): the image, and who is credited with it.
      body: { file: "kept", uploader_user_id: "kept" },
    },
    async (req) => {
      const found = org(req);
      const uploader = await uploadFormField(req, "uploader_user_id");
      if (uploader !== null && !store.user(uploader)) {
        throw new ApiError(404, "resource_not_found", "User not found", "uploader_user_id");
      }
      return organizationJSON(store, setOrganizationLogo(store, found, await readImageUpload(req)), "bapi");
    },
  );
  route("DELETE", "/v1/organizations/:id/logo", { body: {} }, (req) => {
    const found = org(req);
    removeOrganizationLogo(store, found);
    return organizationJSON(store, found, "bapi");
  });
  route("DELETE", "/v1/organizations/:id", { body: {} }, (req) => {
    const found = org(req);
    deleteOrganization(store, found);
    return deletedJSON("organization", found.id, found.slug ? { slug: found.slug } : {});
  });

  route("GET", "/v1/organizations/:id/memberships", { query: listParams(MEMBERSHIP_LIST) }, (req) => {
    const found = org(req);
    const members = filterList(MEMBERSHIP_LIST, req, store, store.membershipsOfOrg(found.id));
    // Oldest first unless asked otherwise (the members page lists them in joining order).
    const list = orderBy(req, members, membershipOrders(store), "created_at").map((m) =>
      membershipJSON(store, m, "bapi"),
    );
    return paginate(list, req.query);
  });
  route(
    "POST",
    "/v1/organizations/:id/memberships",
    {
      body: {
        user_id: "kept",
        role: "kept",
        ...METADATA,
      },
    },
    (req) => {
      const found = org(req);
      const userId = str(req.body?.user_id) ?? "";
      const role = parseRoleKey(store, req.body?.role);
      const metadata = membershipMetadata(bodyOf(req.body));
      return membershipJSON(store, addMember(store, found, userId, role, metadata), "bapi");
    },
  );
  route("PATCH", "/v1/organizations/:id/memberships/:userId", { body: { role: "kept" } }, (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    return membershipJSON(store, changeRole(store, m, parseRoleKey(store, req.body?.role)), "bapi");
  });
  route("DELETE", "/v1/organizations/:id/memberships/:userId", { body: {} }, (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    const json = membershipJSON(store, m, "bapi");
    removeMember(store, m);
    return json;
  });
}
