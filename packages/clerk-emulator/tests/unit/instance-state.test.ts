import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { defaultInstance } from "../../src/state/instance";
import { storeWithDefaults } from "../support/store";

// A state file written before the instance's settings, organization domains
// and the waitlist existed still loads: what it lacks takes Clerk's defaults,
// and what it has is kept.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function stateFile(mutate: (state: Record<string, unknown>) => void): string {
  const dir = mkdtempSync(join(tmpdir(), "emulator-state-"));
  dirs.push(dir);
  const fresh = storeWithDefaults().state as unknown as Record<string, unknown>;
  const state = structuredClone(fresh);
  mutate(state);
  const file = join(dir, "clerk-emulator.json");
  writeFileSync(file, JSON.stringify(state));
  return file;
}

describe("an older state file", () => {
  it("without any of the new records loads with the defaults", () => {
    const file = stateFile((state) => {
      for (const key of [
        "instance",
        "organizationDomains",
        "organizationSuggestions",
        "membershipRequests",
        "waitlistEntries",
      ])
        delete state[key];
    });
    const store = storeWithDefaults(file);
    expect(store.state.instance).toEqual(defaultInstance());
    expect(store.state.organizationDomains).toEqual([]);
    expect(store.state.organizationSuggestions).toEqual([]);
    expect(store.state.membershipRequests).toEqual([]);
    expect(store.state.waitlistEntries).toEqual([]);
    expect(store.state.users.length).toBeGreaterThan(0);
  });

  it("with part of the instance's settings keeps them and fills in the rest", () => {
    const file = stateFile((state) => {
      state.instance = { settings: { supportEmail: "help@example.com" }, svixApp: false };
    });
    const store = storeWithDefaults(file);
    expect(store.state.instance.settings).toEqual({ ...defaultInstance().settings, supportEmail: "help@example.com" });
    expect(store.state.instance.svixApp).toBe(false);
    expect(store.state.instance.organizationSettings).toEqual(defaultInstance().organizationSettings);
    expect(store.state.instance.redirectUrls).toEqual([]);
    // And writes it back whole.
    store.flush();
    expect(JSON.parse(readFileSync(file, "utf8")).instance.organizationSettings.creatorRole).toBe("org:admin");
  });
});
