import { z } from "zod";
import { THEME_PREFERENCES, type ThemePreference } from "./theme";

export type ThemeSubmission =
  | { ok: true; kind: "form"; theme: ThemePreference; redirectTo: string | null }
  | { ok: true; kind: "json"; theme: ThemePreference }
  | { ok: false; error: string; submitted: string | null };

const INVALID_THEME = `Choose one of: ${THEME_PREFERENCES.join(", ")}.`;
const MAX_BODY_BYTES = 4096;

const FormFields = z.object({
  theme: z.enum(THEME_PREFERENCES, { message: INVALID_THEME }),
  redirectTo: z.string().max(2048).nullable(),
});

// remix-themes posts `{"theme": "light" | "dark" | null}`; null means system.
const JsonBody = z.object({ theme: z.enum(["light", "dark"]).nullable() });

function isFormRequest(request: Request): boolean {
  const type = request.headers.get("Content-Type") ?? "";
  return type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data");
}

/** The theme a request asks for, validated at the edge. Never throws on bad input. */
export async function readThemeSubmission(request: Request): Promise<ThemeSubmission> {
  const declaredLength = Number(request.headers.get("Content-Length") ?? 0);
  if (declaredLength > MAX_BODY_BYTES) return { ok: false, error: "That request was too large.", submitted: null };

  if (isFormRequest(request)) {
    let form: FormData;
    try {
      form = await request.formData();
    } catch {
      return { ok: false, error: INVALID_THEME, submitted: null };
    }
    const raw = form.get("theme");
    const parsed = FormFields.safeParse({
      theme: raw,
      redirectTo: typeof form.get("redirectTo") === "string" ? form.get("redirectTo") : null,
    });
    if (!parsed.success) {
      return { ok: false, error: INVALID_THEME, submitted: typeof raw === "string" ? raw.slice(0, 100) : null };
    }
    return { ok: true, kind: "form", theme: parsed.data.theme, redirectTo: parsed.data.redirectTo };
  }

  let body: unknown;
  try {
    body = JSON.parse(await request.text());
  } catch {
    return { ok: false, error: INVALID_THEME, submitted: null };
  }
  const parsed = JsonBody.safeParse(body);
  if (!parsed.success) return { ok: false, error: INVALID_THEME, submitted: null };
  return { ok: true, kind: "json", theme: parsed.data.theme ?? "system" };
}
