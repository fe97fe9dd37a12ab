import { z } from "zod";
import { isFormRequest } from "../http/forms.server";
import { THEME_PREFERENCES, type ThemePreference } from "./theme";

export type ThemeSubmission =
  | { ok: true; theme: ThemePreference; redirectTo: string | null }
  | { ok: false; error: string; submitted: string | null };

const INVALID_THEME = `Choose one of: ${THEME_PREFERENCES.join(", ")}.`;
const MAX_BODY_BYTES = 4096;

const FormFields = z.object({
  theme: z.enum(THEME_PREFERENCES, { message: INVALID_THEME }),
  redirectTo: z.string().max(2048).nullable(),
});

/**
 * The theme a form asks for, validated at the edge. One shape, with or
 * without JavaScript: `theme`, and `redirectTo` when the page should come
 * back after a plain (document) submission. Never throws on bad input.
 */
export async function readThemeSubmission(request: Request): Promise<ThemeSubmission> {
  const declaredLength = Number(request.headers.get("Content-Length") ?? 0);
  if (declaredLength > MAX_BODY_BYTES) return { ok: false, error: "That request was too large.", submitted: null };
  if (!isFormRequest(request)) return { ok: false, error: INVALID_THEME, submitted: null };
  let form: FormData;
  try {
    form = await request.formData();
  } catch {
    return { ok: false, error: INVALID_THEME, submitted: null };
  }
  const raw = form.get("theme");
  const redirectTo = form.get("redirectTo");
  const parsed = FormFields.safeParse({ theme: raw, redirectTo: typeof redirectTo === "string" ? redirectTo : null });
  if (!parsed.success) {
    return { ok: false, error: INVALID_THEME, submitted: typeof raw === "string" ? raw.slice(0, 100) : null };
  }
  return { ok: true, theme: parsed.data.theme, redirectTo: parsed.data.redirectTo };
}
