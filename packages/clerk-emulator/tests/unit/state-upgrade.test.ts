import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { environmentJSON } from "../../src/json/environment";
import { userJSON } from "../../src/json";
import { seedState } from "../../src/state/seed";
import { storeWithDefaults } from "../support/store";

// A state file written before bans, locks and the instance's restrictions existed still loads:
// nobody is banned or locked, and the instance has no allow-list, block-list or restrictions.
let dir = "";
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("an older emulator state file", () => {
  it("loads with nobody banned or locked and no restrictions", () => {
    dir = mkdtempSync(join(tmpdir(), "emulator-state-"));
    const file = join(dir, "state.json");
    const { allowlist: _a, blocklist: _b, restrictions: _r, ...older } = seedState();
    writeFileSync(file, JSON.stringify(older));

    const store = storeWithDefaults(file);
    expect(store.state.users[0]?.id).toBe("user_seed_ada");
    expect([store.state.allowlist, store.state.blocklist]).toEqual([[], []]);
    expect(store.state.restrictions).toMatchObject({ allowlist: false, blocklist: false });
    expect(userJSON(store, store.user("user_seed_ada")!, "bapi")).toMatchObject({
      banned: false,
      locked: false,
      lockout_expires_in_seconds: null,
      verification_attempts_remaining: 100,
    });
    const env = environmentJSON(store.settings, store.state.instance, store.state.restrictions);
    expect(env.user_settings.restrictions.allowlist).toEqual({ enabled: false });
  });
});
