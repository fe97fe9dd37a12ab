import { describe, expect, it } from "vitest";
import { generateSigningKey, jwks, signJwt, type SigningKey } from "clerk-emulator/testing";
import { createSigningKeys, UNKNOWN_KEY_ID_MS } from "~/lib/clerk/signing-keys.server";
import { sessionTokenCookie, withoutForgedTokens } from "~/lib/clerk/session-cookies.server";

const clerkKey = generateSigningKey();
const otherKey = generateSigningKey();
const token = (key: SigningKey, kid = key.kid) => signJwt({ ...key, kid }, { sub: "user_1", sid: "sess_1" });

function withJwks(served: SigningKey[]) {
  let time = 1_000_000;
  let reads = 0;
  let failing = false;
  const keys = createSigningKeys({
    readKeys: async () => {
      reads++;
      if (failing) throw new Error("JWKS unavailable");
      return served.flatMap((key) => jwks(key).keys);
    },
    now: () => time,
  });
  return {
    keys,
    reads: () => reads,
    pass: (ms: number) => (time += ms),
    fail: (yes: boolean) => (failing = yes),
  };
}

describe("Clerk's signing keys", () => {
  it("readiness reads Clerk's keys until it has them, at most once per 5 s while it cannot, and never after", async () => {
    const { keys, reads, pass, fail } = withJwks([clerkKey]);
    fail(true);
    const answers = await Promise.all(Array.from({ length: 10 }, () => keys.usable()));
    expect(answers.every((usable) => !usable)).toBe(true);
    for (let n = 0; n < 20; n++) expect(await keys.usable()).toBe(false);
    expect(reads()).toBe(1);
    pass(5_000);
    fail(false);
    expect(await keys.usable()).toBe(true);
    expect(reads()).toBe(2);
    fail(true);
    pass(3_600_000);
    for (let n = 0; n < 20; n++) expect(await keys.usable()).toBe(true);
    expect(reads()).toBe(2);
  });

  it("a token counts only if one of Clerk's keys signed it", async () => {
    const { keys } = withJwks([clerkKey]);
    expect(await keys.signedByClerk(token(clerkKey))).toBe(true);
    // Clerk's key id on another key's signature; a made-up key id; not a JWT; a token signed with "none".
    expect(await keys.signedByClerk(token(otherKey, clerkKey.kid))).toBe(false);
    expect(await keys.signedByClerk(token(otherKey))).toBe(false);
    expect(await keys.signedByClerk("not.a.jwt!")).toBe(false);
    const unsigned = `${Buffer.from('{"alg":"none"}').toString("base64url")}.${Buffer.from("{}").toString("base64url")}.x`;
    expect(await keys.signedByClerk(unsigned)).toBe(false);
  });

  it("unknown key ids read the JWKS at most once a minute, however many there are", async () => {
    const { keys, reads, pass } = withJwks([clerkKey]);
    const madeUp = Array.from({ length: 50 }, (_, i) => token(otherKey, `ins_made_up_${i}`));
    const answers = await Promise.all(madeUp.map((t) => keys.signedByClerk(t)));
    expect(answers.every((a) => a === false)).toBe(true);
    expect(reads()).toBe(1);
    pass(UNKNOWN_KEY_ID_MS - 1);
    expect(await keys.signedByClerk(token(otherKey, "ins_another"))).toBe(false);
    expect(reads()).toBe(1);
    // A known key needs no read at all.
    expect(await keys.signedByClerk(token(clerkKey))).toBe(true);
    pass(1);
    expect(await keys.signedByClerk(token(otherKey, "ins_another"))).toBe(false);
    expect(reads()).toBe(2);
  });

  it("a key Clerk starts signing with is found by the next read; a failed read answers for 5 s", async () => {
    const served = [clerkKey];
    const { keys, reads, pass, fail } = withJwks(served);
    expect(await keys.signedByClerk(token(clerkKey))).toBe(true);
    fail(true);
    pass(UNKNOWN_KEY_ID_MS);
    await expect(keys.signedByClerk(token(otherKey))).rejects.toThrow("JWKS unavailable");
    await expect(keys.signedByClerk(token(otherKey))).rejects.toThrow("JWKS unavailable");
    expect(reads()).toBe(2);
    // Tokens of the key already known still verify while the JWKS cannot be read.
    expect(await keys.signedByClerk(token(clerkKey))).toBe(true);
    fail(false);
    served.push(otherKey);
    pass(5_000);
    expect(await keys.signedByClerk(token(otherKey))).toBe(true);
    expect(reads()).toBe(3);
  });

  it("a token remembered as signed stops counting once a read of the JWKS no longer has its key", async () => {
    const served = [clerkKey];
    const { keys, reads, pass } = withJwks(served);
    const remembered = token(clerkKey);
    expect(await keys.signedByClerk(remembered)).toBe(true);
    expect(await keys.signedByClerk(remembered)).toBe(true);
    expect(reads()).toBe(1);
    // Clerk rotates: the old key leaves the JWKS, read again for the new key's first token.
    served.splice(0, 1, otherKey);
    pass(UNKNOWN_KEY_ID_MS);
    expect(await keys.signedByClerk(token(otherKey))).toBe(true);
    expect(reads()).toBe(2);
    expect(await keys.signedByClerk(remembered)).toBe(false);
  });

  it("with CLERK_JWT_KEY, that key alone, and never a read", async () => {
    let reads = 0;
    const keys = createSigningKeys({
      jwtKey: clerkKey.publicKeyPem,
      readKeys: async () => {
        reads++;
        return [];
      },
    });
    expect(await keys.signedByClerk(token(clerkKey, "ins_any"))).toBe(true);
    expect(await keys.signedByClerk(token(otherKey))).toBe(false);
    expect(reads).toBe(0);
  });
});

describe("the request Clerk's SDK is shown", () => {
  const suffix = "AbCd1234";
  const signedByClerk = async (t: string) => t === token(clerkKey);

  it("keeps Clerk's tokens and drops the others, wherever they are", async () => {
    const good = token(clerkKey);
    const forged = token(otherKey);
    const request = new Request(`https://app.example/orgs?__clerk_handshake=${forged}&q=1`, {
      method: "POST",
      headers: {
        Cookie: `__client_uat=1; __session=${good}; __session_${suffix}=${forged}; __clerk_handshake=${forged}; theme=dark`,
        Authorization: `Bearer ${good}`,
      },
    });
    const shown = await withoutForgedTokens(request, suffix, signedByClerk);
    expect(shown.request.method).toBe("POST");
    expect(shown.request.url).toBe("https://app.example/orgs?q=1");
    expect(shown.request.headers.get("Authorization")).toBeNull();
    expect(shown.request.headers.get("Cookie")).toBe(`__client_uat=1; __session=${good}; theme=dark`);
    expect([shown.token, shown.forged]).toEqual([good, false]);
  });

  it("checks a token once, though clerk-js writes it to both session cookies", async () => {
    const good = token(clerkKey);
    let checks = 0;
    const counting = async (t: string) => (checks++, signedByClerk(t));
    const request = new Request("https://app.example/", {
      headers: { Cookie: `__session=${good}; __session_${suffix}=${good}` },
    });
    expect((await withoutForgedTokens(request, suffix, counting)).token).toBe(good);
    expect(checks).toBe(1);
  });

  it("a request whose session tokens were all forged is told apart from one that has none", async () => {
    const cookie = (value: string) => new Request("https://app.example/", { headers: { Cookie: value } });
    const forged = await withoutForgedTokens(
      cookie(`__client_uat=1; __session=${token(otherKey)}`),
      suffix,
      signedByClerk,
    );
    expect([forged.request.headers.get("Cookie"), forged.token, forged.forged]).toEqual(["__client_uat=1", null, true]);
    const none = await withoutForgedTokens(cookie("__client_uat=1"), suffix, signedByClerk);
    expect([none.token, none.forged]).toEqual([null, false]);
  });

  it("reads one session token: this instance's suffixed cookie, else __session, never another suffix", () => {
    const cookie = (value: string) => new Request("https://app.example/", { headers: { Cookie: value } });
    expect(
      sessionTokenCookie(cookie(`__session_other=a.b.c; __session=d.e.f; __session_${suffix}=g.h.i`), suffix),
    ).toBe("g.h.i");
    expect(sessionTokenCookie(cookie("__session_other=a.b.c; __session=d.e.f"), suffix)).toBe("d.e.f");
    expect(sessionTokenCookie(cookie("__session_other=a.b.c"), suffix)).toBeNull();
  });
});
