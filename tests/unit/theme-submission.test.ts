import { describe, expect, it } from "vitest";
import { readThemeSubmission } from "~/lib/theme-submission.server";

const form = (fields: Record<string, string>) =>
  new Request("http://x/resources/theme", {
    method: "POST",
    headers: { "Content-Type": "application/x-www-form-urlencoded" },
    body: new URLSearchParams(fields).toString(),
  });

const json = (body: string) => new Request("http://x/resources/theme", { method: "POST", body });

describe("readThemeSubmission", () => {
  it.each(["light", "dark", "system"])("accepts the form value %s", async (theme) => {
    expect(await readThemeSubmission(form({ theme, redirectTo: "/orgs" }))).toEqual({
      ok: true,
      kind: "form",
      theme,
      redirectTo: "/orgs",
    });
  });

  it("rejects an unknown value with a readable message and echoes what was sent", async () => {
    const result = await readThemeSubmission(form({ theme: "sepia" }));
    expect(result).toEqual({ ok: false, error: "Choose one of: light, dark, system.", submitted: "sepia" });
  });

  it("rejects a missing value", async () => {
    expect((await readThemeSubmission(form({}))).ok).toBe(false);
  });

  it("reads remix-themes' JSON, where null means system", async () => {
    expect(await readThemeSubmission(json('{"theme":null}'))).toEqual({ ok: true, kind: "json", theme: "system" });
    expect(await readThemeSubmission(json('{"theme":"dark"}'))).toEqual({ ok: true, kind: "json", theme: "dark" });
  });

  it.each(['{"theme":"system"}', '{"theme":1}', "not json", "[]"])("rejects the body %s", async (body) => {
    expect((await readThemeSubmission(json(body))).ok).toBe(false);
  });

  it("refuses a body declared larger than 4 KiB", async () => {
    const request = new Request("http://x", {
      method: "POST",
      headers: { "Content-Type": "application/x-www-form-urlencoded", "Content-Length": "999999" },
      body: "theme=dark",
    });
    expect(await readThemeSubmission(request)).toMatchObject({ ok: false });
  });
});
