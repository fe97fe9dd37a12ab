import { membershipJSON } from "../json";
import { membershipOf, mergeMembershipMetadata } from "../domain/memberships";
import { parseMetadata } from "../domain/metadata";
import { paginate } from "../http/routing";
import type { Metadata } from "../state/store";
import type { BackendContext, Route } from "./context";
import { membershipOrders, METADATA } from "./organizations";
import { orderBy } from "./lists";

/** Memberships across the instance, and a membership's metadata. */
export function registerMembershipRoutes(route: Route, { store, org }: BackendContext): void {
  // Every organization's memberships, newest first unless asked otherwise.
  route("GET", "/v1/organization_memberships", { query: ["order_by", "limit", "offset"] }, (req) => {
    const list = orderBy(req, store.state.memberships, membershipOrders(store), "-created_at");
    return paginate(
      list.map((m) => membershipJSON(store, m, "bapi")),
      req.query,
    );
  });

  // Clerk's deep merge, as for a user's or an organization's metadata: a key set to null is removed.
  route("PATCH", "/v1/organizations/:id/memberships/:userId/metadata", { body: METADATA }, (req) => {
    const m = membershipOf(store, org(req), String(req.params.userId));
    const given: Partial<Record<"public" | "private", Metadata>> = {};
    for (const kind of ["public", "private"] as const) {
      const value: unknown = req.body?.[`${kind}_metadata`];
      if (value !== undefined) given[kind] = parseMetadata(value, `${kind}_metadata`);
    }
    return membershipJSON(store, mergeMembershipMetadata(store, m, given), "bapi");
  });
}
