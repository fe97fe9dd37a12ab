import type { Request } from "express";
import { ApiError, valueNotAllowed } from "../domain/errors";
import { str } from "../http/routing";
import type { Store, UserRecord } from "../state/store";

export type BackendContext = ReturnType<typeof createBackendContext>;

/** How a Backend API module registers an operation: `route(method, pattern, { query | body }, handler)`. */
export type { DeclaredRoute as Route } from "./declarations";

/** A query or body parameter that may be given once or repeated (`?user_id=a&user_id=b`). */
export function asList(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === "string");
  return typeof value === "string" ? [value] : [];
}

/** What the Backend API's resources share: the store, the records a path names, the Frontend API's address. */
/**
 * `identification_status` of `PUT /v1/users/:id/email_address` and `…/phone_number`:
 * `verified` (the default) or `unverified`; Clerk's `reserved` is refused, the
 * emulator having no reserved `what` (addresses, phone numbers).
 */
export function identificationStatus(value: unknown, what: string): "verified" | "unverified" {
  const status = str(value) ?? "verified";
  if (status === "verified" || status === "unverified") return status;
  if (status !== "reserved") throw valueNotAllowed("identification_status", status);
  throw new ApiError(
    422,
    "form_param_value_invalid",
    "is invalid",
    "identification_status",
    `The emulator has no reserved ${what}: send verified or unverified.`,
  );
}

export function createBackendContext(
  store: Store,
  /** Where browsers reach the Frontend API, for the links in invitations and sign-in tokens. */
  frontendApiUrl: (req: Request) => string,
) {
  return {
    store,
    frontendApiUrl,
    userOf(req: Request): UserRecord {
      const found = store.user(String(req.params.id));
      if (!found) throw new ApiError(404, "resource_not_found", "User not found");
      return found;
    },
    org(req: Request) {
      const found = store.org(String(req.params.id));
      if (!found) throw new ApiError(404, "resource_not_found", "Organization not found");
      return found;
    },
  };
}
