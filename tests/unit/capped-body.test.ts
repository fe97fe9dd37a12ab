import { afterEach, describe, expect, it, vi } from "vitest";
import { readCappedBody } from "~/lib/upstream/capped-body.server";

const limits = { maxBytes: 10, timeoutMs: 1_000 };

/** A body that sends `chunks`, then either ends, fails, or never ends. */
function streamed(chunks: string[], then: "end" | "fail" | "hang" = "end", headers: HeadersInit = {}) {
  let cancelled = false;
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(new TextEncoder().encode(chunk));
      if (then === "end") controller.close();
      if (then === "fail") controller.error(new TypeError("terminated"));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { response: new Response(body, { headers }), cancelled: () => cancelled };
}

afterEach(() => {
  vi.useRealTimers();
});

describe("readCappedBody", () => {
  it("reads a body up to the cap, whole and in order", async () => {
    const result = await readCappedBody(streamed(["12345", "67890"]).response, limits);
    expect(result.ok && new TextDecoder().decode(result.bytes)).toBe("1234567890");
  });

  it("reads an empty body", async () => {
    const result = await readCappedBody(new Response(null, { status: 204 }), limits);
    expect(result.ok && result.bytes.byteLength).toBe(0);
  });

  it("refuses a body one byte over the cap, and stops reading it", async () => {
    const body = streamed(["12345", "678901"], "hang");
    expect(await readCappedBody(body.response, limits)).toEqual({ ok: false, reason: "too-large" });
    expect(body.cancelled()).toBe(true);
  });

  it("refuses a declared length over the cap without reading any of it", async () => {
    const body = streamed(["1"], "hang", { "Content-Length": "11" });
    expect(await readCappedBody(body.response, limits)).toEqual({ ok: false, reason: "too-large" });
    expect(body.cancelled()).toBe(true);
  });

  it("gives up on a body that is still coming after the time limit", async () => {
    vi.useFakeTimers();
    const body = streamed(["12"], "hang");
    const result = readCappedBody(body.response, limits);
    await vi.advanceTimersByTimeAsync(limits.timeoutMs - 1);
    expect(body.cancelled()).toBe(false);
    await vi.advanceTimersByTimeAsync(1);
    expect(await result).toEqual({ ok: false, reason: "too-slow" });
    expect(body.cancelled()).toBe(true);
  });

  it("says so when the connection fails mid-answer", async () => {
    expect(await readCappedBody(streamed(["12"], "fail").response, limits)).toEqual({ ok: false, reason: "broken" });
  });
});
