import { readdirSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { clerkScreenChunkUrls } from "~/lib/clerk/clerk-js-chunks";
import { OWN_CLERK_JS, clerkJsChunkSuffix, clerkJsDir, findSuffix } from "~/lib/clerk/clerk-js-files.server";

describe("the chunks a Clerk screen needs (app/components/clerk-js-early.tsx)", () => {
  it("are found in the installed clerk-js, for each screen, beside clerk-js itself", () => {
    const suffix = clerkJsChunkSuffix(OWN_CLERK_JS);
    expect(suffix).toMatch(/^_clerk\.browser_[0-9a-f]+_5\.\d+\.\d+\.js$/);
    const files = readdirSync(clerkJsDir());
    for (const screen of ["signin", "signup", "userprofile", "organizationprofile"] as const) {
      const urls = clerkScreenChunkUrls(OWN_CLERK_JS, suffix!, screen);
      expect(urls).toEqual([
        `/_clerk-js/framework${suffix}`,
        `/_clerk-js/vendors${suffix}`,
        `/_clerk-js/ui-common${suffix}`,
        `/_clerk-js/${screen}${suffix}`,
      ]);
      for (const url of urls) expect(files).toContain(url.slice("/_clerk-js/".length));
    }
  });

  it("are not named for a clerk-js from elsewhere (Clerk's CDN resolves its own version)", () => {
    expect(clerkJsChunkSuffix("https://clerk.example.com/npm/@clerk/clerk-js@5/dist/clerk.browser.js")).toBeNull();
    expect(clerkJsChunkSuffix(undefined)).toBeNull();
  });

  it("are not guessed when the build names them otherwise, or one is missing", () => {
    const suffix = "_clerk.browser_70f75e_5.128.0.js";
    const all = ["framework", "vendors", "ui-common", "signin", "signup", "userprofile", "organizationprofile"].map(
      (chunk) => chunk + suffix,
    );
    expect(findSuffix([...all, "ui-common_clerk.legacy.browser_2994cb_5.128.0.js"])).toBe(suffix);
    expect(findSuffix(all.filter((file) => !file.startsWith("signup")))).toBeNull();
    expect(findSuffix(["clerk.browser.js", "ui-common.js", "framework.js"])).toBeNull();
  });
});
