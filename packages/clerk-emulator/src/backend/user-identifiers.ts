import { parsePhone, parseUsername, refuseTakenPhone, refuseTakenUsername } from "../domain/identifiers";
import { ApiError } from "../domain/errors";
import type { Store } from "../state/store";
import { asList } from "./context";

/**
 * `POST /v1/users`' `username`, `phone_number` (one or more, E.164) and
 * `phone_number_identification_status`: all checked before the user is
 * made (domain/users.ts' createUser gives them). The numbers are verified
 * (Clerk's default); the first one is primary.
 */
export function newUserIdentifiers(
  store: Store,
  body: Record<string, unknown>,
): { username: string | null; phones: string[] } {
  const username = body.username === undefined || body.username === null ? null : parseUsername(body.username);
  if (username) refuseTakenUsername(store, username);
  const phones = asList(body.phone_number).map((p) => parsePhone(p));
  if (new Set(phones).size !== phones.length) {
    throw new ApiError(422, "form_param_duplicate", "phone_number must not contain duplicates.", "phone_number");
  }
  for (const phone of phones) refuseTakenPhone(store, phone);
  const statuses = asList(body.phone_number_identification_status);
  if (statuses.length > 0 && statuses.length !== phones.length) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "phone_number_identification_status must have one item per phone number.",
      "phone_number_identification_status",
    );
  }
  if (statuses.some((s) => s !== "verified")) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "phone_number_identification_status",
      "The emulator creates every phone number verified: it has no reserved phone numbers.",
    );
  }
  return { username, phones };
}
