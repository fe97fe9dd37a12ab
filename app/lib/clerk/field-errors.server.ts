type ClerkErrorEntry = { code?: string; message?: string; longMessage?: string; meta?: { paramName?: string } };
type ClerkError = { status?: unknown; errors?: ClerkErrorEntry[] };

/** A Backend API error as @clerk/backend throws it (`clerkError: true`), or null for anything else. */
function asClerkError(error: unknown): ClerkError | null {
  return typeof error === "object" && error !== null && (error as { clerkError?: unknown }).clerkError === true
    ? (error as ClerkError)
    : null;
}

/**
 * Field messages from a Backend API 4xx (for example a taken slug or a
 * duplicate invitation), keyed by our form's field names; `null` for anything
 * else, which the caller rethrows.
 */
export function clerkFieldErrors(error: unknown, fields: Record<string, string>): Record<string, string> | null {
  const clerkError = asClerkError(error);
  if (!clerkError) return null;
  const { status, errors } = clerkError;
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
  return asClerkError(error)?.errors?.[0]?.code ?? null;
}

/** True for a Backend API 404 (a resource that no longer exists). */
export function isClerkNotFound(error: unknown): boolean {
  return asClerkError(error)?.status === 404;
}
