import { describe, expect, it } from "vitest";
import { defaultAvatarSvg } from "../../src/http/default-avatars";
import { readDefaultAvatar } from "../../src/domain/public-profile";

const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

describe("default avatars", () => {
  it("reads Clerk's payload, and nothing else", () => {
    expect(readDefaultAvatar(encode({ type: "default", iid: "ins_x", rid: "user_x", initials: "JN" }))).toEqual({
      type: "default",
      iid: "ins_x",
      rid: "user_x",
      initials: "JN",
    });
    expect(readDefaultAvatar(encode({ type: "proxy", src: "https://example.com/a.png" }))).toBeNull();
    expect(readDefaultAvatar(encode({ type: "default", iid: "ins_x" }))).toBeNull();
    expect(readDefaultAvatar(encode({ type: "default", iid: "ins_x", rid: "user_x", initials: 7 }))).toBeNull();
    expect(readDefaultAvatar("%%%")).toBeNull();
  });

  it("draws the initials as text, never as markup, and the same colour for the same id", () => {
    const svg = defaultAvatarSvg("user_x", "<&");
    expect(svg).toContain(">&lt;&amp;</text>");
    expect(svg).not.toContain("<&");
    expect(defaultAvatarSvg("user_x", "")).toBe(defaultAvatarSvg("user_x", ""));
    expect(defaultAvatarSvg("user_x", "")).not.toContain("<text");
    // Two letters at the most, as Clerk's initials.
    expect(defaultAvatarSvg("user_x", "ABC")).toContain(">AB</text>");
  });
});
