import { describe, expect, it } from "vitest";
import { createDevBrowser, MAX_DEV_BROWSERS } from "../../src/domain/dev-browsers";
import { storeWithDefaults } from "../support/store";

describe("dev browsers", () => {
  it("are kept up to MAX_DEV_BROWSERS: past it the oldest goes, so asking for them cannot fill the memory", () => {
    const store = storeWithDefaults();
    const first = createDevBrowser(store);
    for (let i = 1; i < MAX_DEV_BROWSERS; i++) createDevBrowser(store);
    expect(store.state.devBrowsers).toHaveLength(MAX_DEV_BROWSERS);
    expect(store.state.devBrowsers[0]!.id).toBe(first.id);
    const newest = createDevBrowser(store);
    expect(store.state.devBrowsers).toHaveLength(MAX_DEV_BROWSERS);
    expect(store.state.devBrowsers.some((d) => d.id === first.id)).toBe(false);
    expect(store.state.devBrowsers.at(-1)!.id).toBe(newest.id);
  });
});
