import type { Request } from "express";
import { EMAIL, createInstanceInvitation, ticketUrl } from "../domain/invitations";
import { addListedIdentifier, changeRestrictions, removeListedIdentifier } from "../domain/account-restrictions";
import { deletedJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { IdentifierRecord, RestrictionsRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { isTrue } from "./declarations";
import { page } from "./lists";

/** An address, or a whole domain as `*@example.com` (the block-list also takes a bare `example.com`). */
const DOMAIN = /^(\*@)?[^\s@*]+\.[^\s@*]+$/;

/**
 * The allow-list and block-list, and the restrictions that turn them (and the
 * email address rules) on. Their effect is at the Frontend API's sign-up and
 * sign-in (domain/account-restrictions.ts).
 */
export function registerRestrictionRoutes(route: Route, { store, frontendApiUrl }: BackendContext): void {
  /** The identifier a request adds, as Clerk keeps it (lower case); phones and wallets the instance has none of. */
  const identifierOf = (req: Request, list: "allowlist" | "blocklist"): string => {
    const value = str(req.body?.identifier)?.trim().toLowerCase() ?? "";
    if (!value) throw new ApiError(422, "form_param_missing", "Enter identifier.", "identifier");
    const domain = DOMAIN.test(value) && (value.startsWith("*@") || list === "blocklist");
    if (!EMAIL.test(value) && !domain) {
      throw new ApiError(
        422,
        "form_param_format_invalid",
        "identifier must be an email address or an email domain (*@example.com).",
        "identifier",
        "The emulator's instance has no phone numbers or web3 wallets (its GUIDE.md).",
      );
    }
    if (store.state[list].some((e) => e.identifier === value)) {
      throw new ApiError(400, "duplicate_record", `${value} is already on the ${list}.`, "identifier");
    }
    return value;
  };

  const identifierJSON = (object: string, e: IdentifierRecord) => ({
    object,
    id: e.id,
    ...(e.invitationId ? { invitation_id: e.invitationId } : {}),
    identifier: e.identifier,
    identifier_type: "email_address",
    instance_id: "ins_emulator",
    created_at: e.createdAt,
    updated_at: e.updatedAt,
  });
  const allowlistJSON = (e: IdentifierRecord) => identifierJSON("allowlist_identifier", e);
  const blocklistJSON = (e: IdentifierRecord) => identifierJSON("blocklist_identifier", e);

  const add = (list: "allowlist" | "blocklist", identifier: string, invitationId: string | null = null) =>
    addListedIdentifier(store, list, identifier, invitationId);
  const remove = (list: "allowlist" | "blocklist", req: Request) =>
    removeListedIdentifier(store, list, String(req.params.id));

  // Newest first; `paginated=true` (what @clerk/backend sends) wraps the page with the total (contract/allowlist.ts).
  route("GET", "/v1/allowlist_identifiers", { query: ["paginated", "limit", "offset"] }, (req) => {
    const all = [...store.state.allowlist].reverse();
    const data = page(req, all).map(allowlistJSON);
    return isTrue(req.query.paginated) ? { data, total_count: all.length } : data;
  });
  // `notify`: the address is also invited (an application invitation, emailed), unless it already has an account.
  route("POST", "/v1/allowlist_identifiers", { body: { identifier: "kept", notify: "flag" } }, (req) => {
    const identifier = identifierOf(req, "allowlist");
    let invitationId: string | null = null;
    if (isTrue(req.body?.notify) && EMAIL.test(identifier) && !store.emailTaken(identifier)) {
      invitationId = createInstanceInvitation(store, {
        email: identifier,
        redirectUrl: null,
        ignoreExisting: true,
        link: (ticket) => ticketUrl(frontendApiUrl(req), ticket),
      }).id;
    }
    return allowlistJSON(add("allowlist", identifier, invitationId));
  });
  route("DELETE", "/v1/allowlist_identifiers/:id", { body: {} }, (req) =>
    deletedJSON("allowlist_identifier", remove("allowlist", req).id),
  );

  route("GET", "/v1/blocklist_identifiers", { query: [] }, () => {
    const data = [...store.state.blocklist].reverse().map(blocklistJSON);
    return { data, total_count: data.length };
  });
  route("POST", "/v1/blocklist_identifiers", { body: { identifier: "kept" } }, (req) =>
    blocklistJSON(add("blocklist", identifierOf(req, "blocklist"))),
  );
  route("DELETE", "/v1/blocklist_identifiers/:id", { body: {} }, (req) =>
    deletedJSON("blocklist_identifier", remove("blocklist", req).id),
  );

  const FIELDS: Record<string, keyof RestrictionsRecord> = {
    allowlist: "allowlist",
    blocklist: "blocklist",
    allowlist_blocklist_disabled_on_sign_in: "allowlistBlocklistDisabledOnSignIn",
    block_email_subaddresses: "blockEmailSubaddresses",
    block_disposable_email_domains: "blockDisposableEmailDomains",
  };
  route(
    "PATCH",
    "/v1/instance/restrictions",
    {
      body: {
        allowlist: "kept",
        blocklist: "kept",
        allowlist_blocklist_disabled_on_sign_in: "kept",
        block_email_subaddresses: "kept",
        block_disposable_email_domains: "kept",
      },
    },
    (req) => {
      const body = (req.body ?? {}) as Record<string, unknown>;
      const changes: Partial<RestrictionsRecord> = {};
      for (const [param, field] of Object.entries(FIELDS)) {
        const value = body[param];
        if (value === undefined || value === null) continue;
        if (typeof value !== "boolean" && value !== "true" && value !== "false") {
          throw new ApiError(422, "form_param_format_invalid", `${param} must be true or false.`, param);
        }
        changes[field] = isTrue(value);
      }
      const restrictions = changeRestrictions(store, changes);
      return {
        object: "instance_restrictions",
        ...Object.fromEntries(Object.entries(FIELDS).map(([param, field]) => [param, restrictions[field]])),
      };
    },
  );
}
