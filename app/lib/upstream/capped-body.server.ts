/**
 * An upstream's answer read whole, but never more than `maxBytes` of it nor for
 * longer than `timeoutMs`: whatever an upstream sends (a declared or endless
 * body, a trickle), a request holds at most that much memory and time.
 */
export type CappedBody =
  { ok: true; bytes: Uint8Array<ArrayBuffer> } | { ok: false; reason: "too-large" | "too-slow" | "broken" };

export async function readCappedBody(
  response: Response,
  { maxBytes, timeoutMs }: { maxBytes: number; timeoutMs: number },
): Promise<CappedBody> {
  const declared = Number(response.headers.get("content-length") ?? "0");
  if (declared > maxBytes) {
    await response.body?.cancel();
    return { ok: false, reason: "too-large" };
  }
  if (!response.body) return { ok: true, bytes: new Uint8Array() };

  const reader = response.body.getReader();
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    // Ends the pending read (as `done`) and closes the upstream connection.
    void reader.cancel().catch(() => undefined);
  }, timeoutMs);
  const chunks: Uint8Array[] = [];
  let length = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: "broken" as const, value: undefined }));
      if (timedOut) return { ok: false, reason: "too-slow" };
      // The connection failed mid-answer: what came is not the answer.
      if (done === "broken") return { ok: false, reason: "broken" };
      if (done) break;
      length += value.byteLength;
      if (length > maxBytes) {
        await reader.cancel().catch(() => undefined);
        return { ok: false, reason: "too-large" };
      }
      chunks.push(value);
    }
  } finally {
    clearTimeout(timer);
  }
  const bytes = new Uint8Array(length);
  let offset = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return { ok: true, bytes };
}
