import { describe, expect, it } from "vitest";
import { readThemeSubmission } from "~/lib/theme/theme-submission.server";

const form = (fields: Record<string, string>) =>
  new Request("http://x/resources/theme", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

const json = (body: string) =>
  new Request("http://x/resources/theme", { method: "POST", headers: { "Content-Type": "application/json" }, body });

describe("readThemeSubmission", () => {
  it.each(["light", "dark", "system"])("accepts the form value %s", async (theme) => {
    expect(await readThemeSubmission(form({ theme, redirectTo: "/orgs" }))).toEqual({
      ok: true,
      theme,
      redirectTo: "/orgs",
    });
  });

  it("has no redirectTo when the fetcher sends none (it wants JSON back)", async () => {
    expect(await readThemeSubmission(form({ theme: "dark" }))).toEqual({ ok: true, theme: "dark", redirectTo: null });
  });

  it("rejects an unknown value with a readable message and echoes what was sent", async () => {
    const result = await readThemeSubmission(form({ theme: "sepia" }));
    expect(result).toEqual({ ok: false, error: "Choose one of: light, dark, system.", submitted: "sepia" });
  });

  it("rejects a missing value", async () => {
    expect((await readThemeSubmission(form({}))).ok).toBe(false);
  });

  it.each(['{"theme":null}', '{"theme":"dark"}', "theme=dark"])(
    "refuses anything but a form, such as %s sent as JSON",
    async (body) => {
      expect((await readThemeSubmission(json(body))).ok).toBe(false);
    },
  );

  it("refuses a body declared larger than 4 KiB", async () => {
    const request = new Request("http://x", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": "999999" },
      body: "theme=dark",
    });
    expect(await readThemeSubmission(request)).toMatchObject({ ok: false });
  });
});
