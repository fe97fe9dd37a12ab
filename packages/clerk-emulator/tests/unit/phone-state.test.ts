import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { userJSON } from "../../src/json";
import { seedState } from "../../src/state/seed";
import { storeWithDefaults } from "../support/store";

// A state file written before the emulator kept phone numbers and usernames
// still loads: its people have none, and no answer breaks on the missing fields.
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("a state file from before phone numbers and usernames", () => {
  it("loads with no numbers and no usernames, and renders its users", () => {
    const dir = mkdtempSync(join(tmpdir(), "emulator-phone-state-"));
    dirs.push(dir);
    const old = seedState() as unknown as { users: Record<string, unknown>[] };
    for (const user of old.users) {
      delete user.username;
      delete user.phones;
      delete user.phoneId;
    }
    const file = join(dir, "state.json");
    writeFileSync(file, JSON.stringify(old));
    const store = storeWithDefaults(file);
    const ada = store.user("user_seed_ada")!;
    expect([ada.username, ada.phones, ada.phoneId]).toEqual([null, [], null]);
    expect(userJSON(store, ada, "bapi")).toMatchObject({
      username: null,
      phone_numbers: [],
      primary_phone_number_id: null,
    });
    expect(store.state.users).toHaveLength(old.users.length);
  });
});
