import { json } from "@remix-run/node";
import { isUnavailable, UNAVAILABLE_MESSAGE } from "../upstream/request-scope.server";

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
 * When an upstream write gave up: the form comes back as it was typed, with
 * `whatFailed` and the catalogue's 503 message (under `key`, "form" unless the
 * page has several forms), and the upstream's `Retry-After`. `null` for any
 * other error, which the caller handles.
 */
export function formOutage<Values>(error: unknown, values: Values, whatFailed: string, key = "form") {
  if (!isUnavailable(error)) return null;
  return formFailure(
    values,
    { [key]: `${whatFailed} ${UNAVAILABLE_MESSAGE}` },
    { status: 503, headers: { "Retry-After": error.headers.get("Retry-After") ?? "5" } },
  );
}
