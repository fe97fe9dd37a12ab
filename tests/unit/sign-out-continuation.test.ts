import { describe, expect, it } from "vitest";
import {
  CONTINUATION_TTL_MS,
  endSignOutContinuation,
  readSignOutContinuation,
  startSignOutContinuation,
} from "~/lib/clerk/sign-out-continuation.server";

const secret = "s".repeat(40);
const at = (ms: number) => ({ secret, secure: true, now: () => ms });
const sentBack = (setCookie: string) =>
  new Request("https://teamwork.example.com/resources/sign-out", { headers: { Cookie: setCookie.split(";")[0]! } });

describe("sign-out's continuation", () => {
  it("names its session for two minutes, in an HTTPS-only cookie scripts cannot read", async () => {
    const setCookie = await startSignOutContinuation("sess_1", at(1_000_000));
    expect(setCookie).toMatch(/^__sign_out=.+; Max-Age=120; Path=\/resources; HttpOnly; Secure; SameSite=Lax$/);
    expect(await readSignOutContinuation(sentBack(setCookie), at(1_000_000))).toEqual({ sessionId: "sess_1" });
    expect(await readSignOutContinuation(sentBack(setCookie), at(1_000_000 + CONTINUATION_TTL_MS - 1))).toEqual({
      sessionId: "sess_1",
    });
    // Past its two minutes, whatever the browser kept.
    expect(await readSignOutContinuation(sentBack(setCookie), at(1_000_000 + CONTINUATION_TTL_MS))).toBeNull();
  });

  it("is nothing when signed with another secret, or when ended", async () => {
    const setCookie = await startSignOutContinuation("sess_1", at(0));
    const otherSecret = { secret: "t".repeat(40), secure: true, now: () => 0 };
    expect(await readSignOutContinuation(sentBack(setCookie), otherSecret)).toBeNull();
    const ended = await endSignOutContinuation(at(0));
    expect(ended).toMatch(/^__sign_out=; Max-Age=0;/);
    expect(await readSignOutContinuation(sentBack(ended), at(0))).toBeNull();
  });
});
