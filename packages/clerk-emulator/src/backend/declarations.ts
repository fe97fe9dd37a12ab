import type { Request } from "express";
import { ApiError } from "../domain/errors";
import { str, type Handler, type Route } from "../http/routing";

/**
 * What a Backend API operation takes, declared where it is registered
 * (`route("GET", "/v1/users/:id", { query: [] }, handler)`):
 *
 * - `query`: for a GET, each query parameter Clerk's OpenAPI description
 *   gives it (a list's filters and its paging, order and shape options);
 * - `body`: for a write (POST, PATCH, PUT, DELETE), each body field Clerk's
 *   description lists for it, with what the emulator does with it: `kept`
 *   (stored, answered, read where it matters), `flag` (an instruction it
 *   follows: a check to skip, a notice it never needs to send), or refused
 *   with the reason.
 *
 * Webhook events are not declared: the webhook sender finds them by comparing
 * the state before and after each change, so no operation can forget one.
 *
 * A parameter not declared, or refused, is Clerk's 422 `form_param_unknown`
 * naming it (what Clerk answers for a field of a feature the instance has
 * turned off), never ignored; a refused flag sent as `false` asks for nothing
 * and passes. The request is refused before its handler runs, so nothing is
 * changed. A GET without `query`, or a write without `body`, cannot be
 * registered (it throws at start-up). tests/unit/query-params.test.ts and
 * body-fields.test.ts compare each declaration with Clerk's description.
 */
export type Declaration = {
  query?: readonly string[];
  body?: BodyFields;
};

export type FieldRule = "kept" | "flag" | { refused: string };
export type BodyFields = Readonly<Record<string, FieldRule>>;

type Method = Parameters<Route>[0];
/** How a Backend API module registers an operation: with what it takes declared. */
export type DeclaredRoute = (method: Method, pattern: string, declared: Declaration, handler: Handler) => void;

/** Every Backend API operation registered in this process (`METHOD pattern`), with its declaration. */
const declared = new Map<string, Declaration>();
export function declaredOperations(): ReadonlyMap<string, Declaration> {
  return declared;
}

/** A registrar whose operations refuse what their declaration does not name. */
export function withDeclarations(register: Route): DeclaredRoute {
  return (method, pattern, declaration, handler) => {
    const key = `${method} ${pattern}`;
    const { query, body } = declaration;
    if (method === "GET" && !query) throw new Error(`Backend API ${key}: declare its query parameters ({ query })`);
    if (method !== "GET" && !body) throw new Error(`Backend API ${key}: declare its body fields ({ body })`);
    declared.set(key, declaration);
    register(method, pattern, (req, res) => {
      if (query) refuseUnknownQueryParams(req, query);
      if (body) refuseUnkeptFields(bodyOf(req.body), body);
      return handler(req, res);
    });
  };
}

/** Clerk's answer to a parameter it does not know (`FormUnknownParameter`: 422, `form_param_unknown`). */
export function unknownParameter(name: string, why?: string): ApiError {
  return new ApiError(
    422,
    "form_param_unknown",
    "is unknown",
    name,
    `${name} is not a valid parameter for this request.${why ? ` ${why}` : ""}`,
  );
}

/** Refuses the first query parameter `known` does not name. */
export function refuseUnknownQueryParams(req: Request, known: readonly string[]): void {
  for (const name of Object.keys(req.query)) {
    if (!known.includes(name)) throw unknownParameter(name);
  }
}

/** Clerk's 422 for the first field `fields` refuses or does not list (a refused `false` flag asks for nothing). */
export function refuseUnkeptFields(body: Record<string, unknown>, fields: BodyFields): void {
  for (const [name, value] of Object.entries(body)) {
    const rule = fields[name];
    if (rule === "kept" || rule === "flag" || value === undefined) continue;
    if (rule && (value === false || value === "false" || value === null)) continue;
    throw unknownParameter(name, rule?.refused);
  }
}

/** A JSON or form body's fields; an array (a bulk request) or an upload's bytes have none. */
export const bodyOf = (body: unknown): Record<string, unknown> =>
  typeof body === "object" && body !== null && !Array.isArray(body) && !Buffer.isBuffer(body)
    ? (body as Record<string, unknown>)
    : {};

/** A boolean as JSON sends it, or as a form does. */
export const isTrue = (value: unknown) => value === true || value === "true";

/** RFC 3339, as Clerk takes `created_at` and `legal_accepted_at` (Clerk's 422 `form_param_format_invalid` otherwise). */
export function timeOf(value: unknown, name: string): number {
  const text = str(value) ?? "";
  const t = /^\d{4}-\d{2}-\d{2}T/.test(text) ? Date.parse(text) : NaN;
  if (!Number.isFinite(t)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "invalid format",
      name,
      `${name} must contain a datetime specified in RFC3339 format (e.g. \`2022-10-20T10:00:27.645Z\`).`,
    );
  }
  return t;
}
