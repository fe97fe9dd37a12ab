import { json } from "@remix-run/node";
import { isUnavailable, refusalMessage } from "../upstream/refusals.server";

/** What a form action sends back when it did not do its work: the messages, and what the person typed. */
export type FormFailure<Values> = { ok: false; values: Values; errors: Record<string, string> };

export function formFailure<Values>(
  values: Values,
  errors: Record<string, string>,
  init: ResponseInit = { status: 400 },
) {
  return json<FormFailure<Values>>({ ok: false, values, errors }, init);
}

/**
 * When an upstream write gave up, or was not made because the person's own
 * allowance of Clerk calls is spent: the form comes back as it was typed,
 * with `whatFailed` and the catalogue's 503 message or the 429's (under
 * `key`, "form" unless the page has several forms), its status and its
 * `Retry-After`. `null` for any other error, which the caller handles.
 */
export function formOutage<Values>(error: unknown, values: Values, whatFailed: string, key = "form") {
  if (!isUnavailable(error)) return null;
  return formFailure(
    values,
    { [key]: `${whatFailed} ${refusalMessage(error)}` },
    { status: error.status, headers: { "Retry-After": error.headers.get("Retry-After") ?? "5" } },
  );
}
