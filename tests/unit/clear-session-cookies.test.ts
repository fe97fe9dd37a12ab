import { describe, expect, it } from "vitest";
import { clearSessionCookies } from "~/lib/clerk/session-cookies.server";

describe("clearSessionCookies", () => {
  it("ends __session and __client_uat, suffixed twins included, and nothing else", () => {
    const request = new Request("http://x", {
      headers: { Cookie: "__session=a; __session_Xy12=b; __client_uat_Xy12=5; theme=dark; other=1" },
    });
    const cookies = clearSessionCookies(request);
    expect(cookies).toEqual(
      expect.arrayContaining([
        "__session=; Max-Age=0; Path=/; SameSite=Lax",
        "__session_Xy12=; Max-Age=0; Path=/; SameSite=Lax",
        expect.stringMatching(/^__client_uat=0;/),
        expect.stringMatching(/^__client_uat_Xy12=0;/),
      ]),
    );
    expect(cookies.join("\n")).not.toMatch(/theme|other/);
  });
});
