type ClerkErrorEntry = { code?: string; message?: string; longMessage?: string; meta?: { paramName?: string } };

/**
 * Field messages from a Backend API 4xx (for example a taken slug or a
 * duplicate invitation), keyed by our form's field names; `null` for anything
 * else, which the caller rethrows.
 */
export function clerkFieldErrors(error: unknown, fields: Record<string, string>): Record<string, string> | null {
  if (typeof error !== "object" || error === null || (error as { clerkError?: unknown }).clerkError !== true)
    return null;
  const { status, errors } = error as { status?: number; errors?: ClerkErrorEntry[] };
  if (typeof status !== "number" || status < 400 || status >= 500 || status === 401 || status === 429) return null;
  const messages: Record<string, string> = {};
  for (const entry of errors ?? []) {
    const field = fields[entry.meta?.paramName ?? ""] ?? "form";
    messages[field] ??= entry.longMessage || entry.message || "Please check this value.";
  }
  return Object.keys(messages).length ? messages : { form: "Clerk refused this request. Please check the values." };
}

/** The code of a Backend API error (`organization_invitation_not_pending`…), or null for anything else. */
export function clerkErrorCode(error: unknown): string | null {
  if (typeof error !== "object" || error === null || (error as { clerkError?: unknown }).clerkError !== true)
    return null;
  return (error as { errors?: ClerkErrorEntry[] }).errors?.[0]?.code ?? null;
}

/** True for a Backend API 404 (a resource that no longer exists). */
export function isClerkNotFound(error: unknown): boolean {
  return (
    typeof error === "object" &&
    error !== null &&
    (error as { clerkError?: unknown }).clerkError === true &&
    (error as { status?: unknown }).status === 404
  );
}
