import type { Request } from "express";
import { parseEmail } from "../domain/invitations";
import { deletedJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { WaitlistEntryRecord } from "../state/store";
import {
  deleteWaitlistEntry,
  inviteFromWaitlist,
  joinWaitlist,
  rejectFromWaitlist,
  waitlistStatus,
} from "../domain/waitlist";
import { waitlistEntryJSON } from "../json/waitlist";
import type { BackendContext, Route } from "./context";
import { isTrue } from "./declarations";
import { orderBy, page } from "./lists";

const STATUSES = ["pending", "invited", "completed", "rejected"];
/** Clerk's bulk limit for waitlist entries. */
const BULK_MAX = 50;

export function registerWaitlistRoutes(route: Route, { store, frontendApiUrl }: BackendContext): void {
  const out = (req: Request) => (e: WaitlistEntryRecord) => waitlistEntryJSON(store, e, frontendApiUrl(req));
  const entryOf = (req: Request) => {
    const found = store.state.waitlistEntries.find((e) => e.id === req.params.id);
    if (!found) throw new ApiError(404, "resource_not_found", "Waitlist entry not found");
    return found;
  };
  const invitedAt = (e: WaitlistEntryRecord) =>
    store.state.invitations.find((i) => i.id === e.invitationId)?.createdAt ?? null;

  route("GET", "/v1/waitlist_entries", { query: ["limit", "offset", "query", "status", "order_by"] }, (req) => {
    const status = str(req.query.status);
    if (status !== null && !STATUSES.includes(status)) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "status",
        `status must be one of ${STATUSES.join(", ")}.`,
      );
    }
    const query = (str(req.query.query) ?? "").trim().toLowerCase();
    const found = store.state.waitlistEntries.filter(
      (e) => (status === null || waitlistStatus(store, e) === status) && (!query || e.email.includes(query)),
    );
    const list = orderBy(
      req,
      found,
      { created_at: (e) => e.createdAt, email_address: (e) => e.email, invited_at: invitedAt },
      "-created_at",
    );
    return { data: page(req, list).map(out(req)), total_count: list.length };
  });
  route("POST", "/v1/waitlist_entries", { body: { email_address: "kept", notify: "flag" } }, (req) => {
    const entry = joinWaitlist(
      store,
      parseEmail(req.body?.email_address),
      req.body?.notify !== false && req.body?.notify !== "false",
    );
    return out(req)(entry);
  });
  route(
    "POST",
    "/v1/waitlist_entries/bulk",
    {
      // An array of `{email_address, notify}`, each checked by the endpoint.
      body: {},
    },
    (req) => {
      const items: unknown = req.body;
      if (!Array.isArray(items) || items.length === 0 || items.length > BULK_MAX) {
        throw new ApiError(
          422,
          "bulk_size_exceeded",
          "is invalid",
          undefined,
          `Send between 1 and ${BULK_MAX} entries.`,
        );
      }
      // Every address is checked before any entry is made.
      const parsed = items.map((item: { email_address?: unknown; notify?: unknown }) => ({
        email: parseEmail(item?.email_address),
        notify: item?.notify !== false,
      }));
      return parsed.map(({ email, notify }) => out(req)(joinWaitlist(store, email, notify)));
    },
  );
  route("DELETE", "/v1/waitlist_entries/:id", { body: {} }, (req) => {
    const entry = entryOf(req);
    deleteWaitlistEntry(store, entry);
    return deletedJSON("waitlist_entry", entry.id);
  });
  route("POST", "/v1/waitlist_entries/:id/invite", { body: { ignore_existing: "flag" } }, (req) => {
    const entry = entryOf(req);
    inviteFromWaitlist(store, entry, frontendApiUrl(req), isTrue(req.body?.ignore_existing));
    return out(req)(entry);
  });
  route("POST", "/v1/waitlist_entries/:id/reject", { body: {} }, (req) => {
    const entry = entryOf(req);
    rejectFromWaitlist(store, entry);
    return out(req)(entry);
  });
}
