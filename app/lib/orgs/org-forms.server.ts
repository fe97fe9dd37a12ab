import { z } from "zod";
import { textField as text } from "../http/forms.server";
import { INVITE_ROLES, type OrgRole } from "./organizations";

/** What a form sends back on error: the messages, and what the person typed. */
export type FormResult<Values> =
  { ok: true; data: Values } | { ok: false; values: Record<string, string>; errors: Record<string, string> };

const MAX_NAME = 64;
const MAX_EMAIL = 254;
const MAX_QUERY = 100;
const RESERVED_SLUGS = new Set(["new"]);

// Markup characters and control characters have no place in a name: refusing
// them keeps names plain wherever they travel (emails, other apps, exports).
const PLAIN_TEXT = /^[^<>\p{Cc}]*$/u;

function fail<T>(values: Record<string, string>, error: z.ZodError): FormResult<T> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) errors[String(issue.path[0] ?? "form")] ??= issue.message;
  return { ok: false, values, errors };
}

const newOrganization = z.object({
  name: z
    .string()
    .trim()
    .min(1, "Enter a name for the organization.")
    .min(2, "Use at least 2 characters.")
    .max(MAX_NAME, `Use at most ${MAX_NAME} characters.`)
    .regex(PLAIN_TEXT, "Names can't contain < or > or control characters."),
  slug: z
    .string()
    .trim()
    .toLowerCase()
    .max(MAX_NAME, `Use at most ${MAX_NAME} characters.`)
    .refine((s) => s === "" || /^[a-z0-9](?:[a-z0-9-]*[a-z0-9])?$/.test(s), {
      message: "Use lowercase letters, digits and dashes, starting and ending with a letter or digit.",
    })
    .refine((s) => !RESERVED_SLUGS.has(s), { message: "That address is reserved. Please choose another." }),
});

export function readNewOrganization(form: FormData): FormResult<{ name: string; slug?: string }> {
  const values = { name: text(form, "name"), slug: text(form, "slug") };
  const parsed = newOrganization.safeParse(values);
  if (!parsed.success) return fail(values, parsed.error);
  return { ok: true, data: { name: parsed.data.name, slug: parsed.data.slug || undefined } };
}

const invite = z.object({
  emailAddress: z
    .string()
    .trim()
    .min(1, "Enter the email address to invite.")
    .max(MAX_EMAIL, "That email address is too long.")
    .email("Enter a valid email address, like name@example.com."),
  role: z.enum(INVITE_ROLES, { errorMap: () => ({ message: "Choose Member or Admin." }) }),
});

export function readInvite(form: FormData): FormResult<{ emailAddress: string; role: OrgRole }> {
  const values = { emailAddress: text(form, "emailAddress"), role: text(form, "role") };
  const parsed = invite.safeParse(values);
  if (!parsed.success) return fail(values, parsed.error);
  return { ok: true, data: { emailAddress: parsed.data.emailAddress.toLowerCase(), role: parsed.data.role } };
}

/** `?q=` and `?page=` of the members directory; odd values fall back to the first page. */
export function readMembersQuery(url: URL): { query: string; page: number } {
  const query = (url.searchParams.get("q") ?? "").trim().slice(0, MAX_QUERY);
  const page = Number(url.searchParams.get("page") ?? "1");
  return { query, page: Number.isInteger(page) && page >= 1 && page <= 10_000 ? page : 1 };
}

/** The invitation a form names (to revoke or accept it): a Clerk id, or nothing usable. */
export function readInvitationId(form: FormData): string | null {
  const id = text(form, "invitationId");
  return /^orginv_[A-Za-z0-9]{1,64}$/.test(id) ? id : null;
}
