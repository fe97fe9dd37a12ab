import type { Request } from "express";
import {
  createInstanceInvitation,
  createInvitation,
  parseEmail,
  pendingInvitations,
  refuseInstanceReinvitation,
  refuseReinvitation,
  revokeInstanceInvitation,
  revokeInvitation,
  ticketUrl,
} from "../domain/invitations";
import { backendInvitationJSON, instanceInvitationJSON, publicOrganizationDataJSON } from "../json";
import { parseRoleKey } from "../domain/roles";
import { ApiError } from "../domain/errors";
import { clampInt, paginate, str } from "../http/routing";
import type { InvitationRecord, OrgRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { bodyOf, isTrue, refuseUnkeptFields, type BodyFields } from "./declarations";
import { filterList, listParams, orderBy, page, type ListSpec, lower, partial } from "./lists";

const NO_INVITATION_METADATA = {
  refused: "The emulator keeps no metadata on invitations (Clerk copies it onto the user who accepts).",
};

/** An invitation to an organization: `POST /v1/organizations/:id/invitations`, and each of a bulk request's. */
const ORGANIZATION_INVITATION_FIELDS: BodyFields = {
  email_address: "kept",
  role: "kept",
  inviter_user_id: "kept",
  redirect_url: "kept",
  expires_in_days: "kept",
  // `false`: no invitation email, so no `email.created` webhook (the link is in the answer's `url` all the same).
  notify: "flag",
  public_metadata: NO_INVITATION_METADATA,
  private_metadata: NO_INVITATION_METADATA,
};

/** An invitation to the application: `POST /v1/invitations`, and each of a bulk request's. */
const INVITATION_FIELDS: BodyFields = {
  email_address: "kept",
  redirect_url: "kept",
  expires_in_days: "kept",
  ignore_existing: "flag",
  // `false`: no invitation email, so no `email.created` webhook. The template is always Clerk's `invitation`.
  notify: "flag",
  template_slug: "flag",
  public_metadata: NO_INVITATION_METADATA,
};

/** An invitation's status as Clerk answers it: a pending one past its time is expired. */
const invitationStatus = (i: InvitationRecord) =>
  i.status === "pending" && i.expiresAt <= Date.now() ? "expired" : i.status;

/** `GET /v1/organizations/:id/invitations`. */
const ORGANIZATION_INVITATION_LIST: ListSpec<InvitationRecord> = {
  filters: {
    status: (values) => (i) => values.includes(invitationStatus(i)),
    email_address: (values) => {
      const wanted = lower(values);
      return (i) => wanted.includes(i.email);
    },
  },
  options: ["order_by", "limit", "offset"],
};

/** `GET /v1/invitations` (the application's). */
const INSTANCE_INVITATION_LIST: ListSpec<InvitationRecord> = {
  filters: {
    status: (values) => (i) => values.includes(invitationStatus(i)),
    query: partial((i) => [i.email, i.id]),
  },
  // `paginated`: Clerk's description of version 2025-11-10 gives this list one shape, an array.
  options: ["order_by", "paginated", "limit", "offset"],
};

/** `GET /v1/organization_invitations`: every organization's invitations. */
const INSTANCE_ORGANIZATION_INVITATION_LIST: ListSpec<InvitationRecord> = {
  filters: {
    status: (values) => (i) => values.includes(invitationStatus(i)),
    query: partial((i) => [i.email, i.id]),
  },
  options: ["order_by", "limit", "offset"],
};

/** Clerk's orders for invitation lists (`order_by`). */
const invitationOrders: Record<string, (i: InvitationRecord) => string | number> = {
  created_at: (i) => i.createdAt,
  email_address: (i) => i.email,
};

/** A bulk request's body: a non-empty list of invitations, each with only the fields one invitation takes. */
function bulkItems(body: unknown, fields: Parameters<typeof refuseUnkeptFields>[1]): Record<string, unknown>[] {
  if (!Array.isArray(body) || body.length === 0) {
    throw new ApiError(422, "form_param_missing", "Send a list of invitations.", "email_address");
  }
  return body.map((item) => {
    const fieldsOfItem = bodyOf(item);
    refuseUnkeptFields(fieldsOfItem, fields);
    return fieldsOfItem;
  });
}

/** Invitations to an organization, and to the application. */
export function registerInvitationRoutes(route: Route, { store, org, frontendApiUrl }: BackendContext): void {
  /** Clerk emails an invitation unless the request says `notify: false`. */
  const emailLink = (req: Request, body: Record<string, unknown> = bodyOf(req.body)) =>
    body.notify === false || body.notify === "false"
      ? null
      : (ticket: string) => ticketUrl(frontendApiUrl(req), ticket);
  const invitationOut = (req: Request) => (inv: InvitationRecord) =>
    backendInvitationJSON(store, inv, ticketUrl(frontendApiUrl(req), inv.ticket));

  /** One invitation to an organization, its fields checked (a bulk request checks them all before making any). */
  const organizationInvitation = (req: Request, found: OrgRecord, body: Record<string, unknown>) => ({
    email: parseEmail(body.email_address),
    role: parseRoleKey(store, body.role),
    inviterUserId: str(body.inviter_user_id),
    redirectUrl: str(body.redirect_url),
    expiresInDays: clampInt(body.expires_in_days, 0, 0, 365),
    link: emailLink(req, body),
  });

  // Every organization's invitations, each with its organization (Clerk's `/v1/organization_invitations`).
  route("GET", "/v1/organization_invitations", { query: listParams(INSTANCE_ORGANIZATION_INVITATION_LIST) }, (req) => {
    const mine = store.state.invitations.filter((i) => i.orgId !== null && store.org(i.orgId));
    const found = filterList(INSTANCE_ORGANIZATION_INVITATION_LIST, req, store, mine);
    const list = orderBy(req, found, invitationOrders, "-created_at").map((i) => ({
      ...invitationOut(req)(i),
      public_organization_data: publicOrganizationDataJSON(store, store.org(i.orgId!)!),
    }));
    return paginate(list, req.query);
  });

  route("GET", "/v1/organizations/:id/invitations", { query: listParams(ORGANIZATION_INVITATION_LIST) }, (req) => {
    const found = org(req);
    const mine = store.state.invitations.filter((i) => i.orgId === found.id);
    // Asked for pending ones, an expired invitation is not among them (its status is `expired`).
    const list = orderBy(
      req,
      filterList(ORGANIZATION_INVITATION_LIST, req, store, mine),
      invitationOrders,
      "created_at",
    );
    return paginate(list.map(invitationOut(req)), req.query);
  });
  // Clerk's older form of `?status=pending` (deprecated, still answered); registered before `:invitationId`.
  route("GET", "/v1/organizations/:id/invitations/pending", { query: ["limit", "offset"] }, (req) =>
    paginate(pendingInvitations(store, org(req).id).map(invitationOut(req)), req.query),
  );
  route("POST", "/v1/organizations/:id/invitations", { body: ORGANIZATION_INVITATION_FIELDS }, (req) => {
    const found = org(req);
    return invitationOut(req)(createInvitation(store, found, organizationInvitation(req, found, bodyOf(req.body))));
  });
  // All or nothing: every invitation is checked (its fields, the address not a member nor invited) before any is made.
  route(
    "POST",
    "/v1/organizations/:id/invitations/bulk",
    {
      // The body is a list of invitations, each checked against ORGANIZATION_INVITATION_FIELDS by the endpoint.
      body: {},
    },
    (req) => {
      const found = org(req);
      const inputs = bulkItems(req.body, ORGANIZATION_INVITATION_FIELDS).map((body) =>
        organizationInvitation(req, found, body),
      );
      inputs.forEach((input, i) => {
        refuseReinvitation(store, found, input.email);
        if (inputs.findIndex((other) => other.email === input.email) !== i) {
          throw new ApiError(400, "duplicate_record", `${input.email} is in the list more than once.`, "email_address");
        }
      });
      const list = inputs.map((input) => invitationOut(req)(createInvitation(store, found, input)));
      return { data: list, total_count: list.length };
    },
  );
  route("GET", "/v1/organizations/:id/invitations/:invitationId", { query: [] }, (req) => {
    const found = org(req);
    const invitation = store.state.invitations.find((i) => i.id === req.params.invitationId && i.orgId === found.id);
    if (!invitation) throw new ApiError(404, "organization_invitation_not_found", "Invitation not found");
    return invitationOut(req)(invitation);
  });
  route(
    "POST",
    "/v1/organizations/:id/invitations/:invitationId/revoke",
    {
      body: {
        // Who asks: the Backend API (the secret key) may revoke any invitation, so it changes nothing here.
        requesting_user_id: "flag",
      },
    },
    (req) => invitationOut(req)(revokeInvitation(store, org(req), String(req.params.invitationId))),
  );

  // Invitations to the application: the link signs up the invited address.
  const instanceInvitationOut = (req: Request) => (inv: InvitationRecord) =>
    instanceInvitationJSON(inv, ticketUrl(frontendApiUrl(req), inv.ticket));
  const instanceInvitation = (req: Request, body: Record<string, unknown>) => ({
    email: parseEmail(body.email_address),
    redirectUrl: str(body.redirect_url),
    expiresInDays: clampInt(body.expires_in_days, 0, 0, 365),
    ignoreExisting: isTrue(body.ignore_existing),
    link: emailLink(req, body),
  });
  route("GET", "/v1/invitations", { query: listParams(INSTANCE_INVITATION_LIST) }, (req) => {
    const mine = store.state.invitations.filter((i) => i.orgId === null);
    const list = orderBy(req, filterList(INSTANCE_INVITATION_LIST, req, store, mine), invitationOrders, "-created_at");
    return page(req, list).map(instanceInvitationOut(req));
  });
  route("POST", "/v1/invitations", { body: INVITATION_FIELDS }, (req) =>
    instanceInvitationOut(req)(createInstanceInvitation(store, instanceInvitation(req, bodyOf(req.body)))),
  );
  route(
    "POST",
    "/v1/invitations/bulk",
    {
      // A list of invitations, each checked against INVITATION_FIELDS by the endpoint.
      body: {},
    },
    (req) => {
      const inputs = bulkItems(req.body, INVITATION_FIELDS).map((body) => instanceInvitation(req, body));
      inputs.forEach((input, i) => {
        refuseInstanceReinvitation(store, input.email, input.ignoreExisting);
        if (!input.ignoreExisting && inputs.findIndex((other) => other.email === input.email) !== i) {
          throw new ApiError(400, "duplicate_record", `${input.email} is in the list more than once.`, "email_address");
        }
      });
      return inputs.map((input) => instanceInvitationOut(req)(createInstanceInvitation(store, input)));
    },
  );
  route("POST", "/v1/invitations/:id/revoke", { body: {} }, (req) => {
    const invitation = revokeInstanceInvitation(store, String(req.params.id));
    return instanceInvitationOut(req)(invitation);
  });
}
