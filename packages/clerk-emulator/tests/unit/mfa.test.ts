import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { sessionJSON, userJSON } from "../../src/json";
import {
  factorVerificationAge,
  importTotp,
  markFactorVerified,
  secondFactorsOf,
  totpMatches,
  twoFactorEnabled,
} from "../../src/domain/mfa";
import { seedState } from "../../src/state/seed";
import { storeWithDefaults } from "../support/store";
import { authenticatorCode } from "../../testing";

// RFC 6238's SHA-1 seed, "12345678901234567890", in base32.
const RFC_SECRET = "GEZDGNBVGY3TQOJQGEZDGNBVGY3TQOJQ";

describe("the emulator's TOTP check", () => {
  it("gives RFC 6238's codes (appendix B, six digits)", () => {
    const at = (seconds: number, code: string) => expect(totpMatches(RFC_SECRET, code, seconds * 1000)).toBe(true);
    at(59, "287082");
    at(1111111109, "081804");
    at(1234567890, "005924");
  });

  it("takes the step either side of now and no further", () => {
    const now = 1_800_000_000_000;
    for (const [steps, ok] of [
      [-2, false],
      [-1, true],
      [0, true],
      [1, true],
      [2, false],
    ] as const) {
      expect(totpMatches(RFC_SECRET, authenticatorCode(RFC_SECRET, steps, now), now), String(steps)).toBe(ok);
    }
  });
});

describe("factor verification ages (fva)", () => {
  it("counts whole minutes since each factor, -1 for a second factor never verified", () => {
    const store = storeWithDefaults();
    const session = store.write(() => store.createSession(store.createClient(), "user_seed_ada", 3_600_000));
    const t = session.createdAt;
    expect(factorVerificationAge(session, t + 59_000)).toEqual([0, -1]);
    markFactorVerified(session, "second", t + 5 * 60_000);
    expect(factorVerificationAge(session, t + 15 * 60_000 + 1)).toEqual([15, 10]);
    markFactorVerified(session, "first", t + 15 * 60_000);
    expect(factorVerificationAge(session, t + 15 * 60_000 + 1)).toEqual([0, 10]);
  });
});

describe("a state file from before MFA", () => {
  it("loads: its users have no second factor, its sessions date their first factor from their start", () => {
    const dir = mkdtempSync(join(tmpdir(), "emulator-mfa-"));
    const file = join(dir, "state.json");
    const old = seedState();
    const createdAt = Date.now() - 30 * 60_000;
    old.sessions.push({
      id: "sess_old",
      clientId: "client_old",
      userId: "user_seed_ada",
      status: "active",
      lastActiveOrganizationId: null,
      createdAt,
      updatedAt: createdAt,
      lastActiveAt: createdAt,
      expireAt: createdAt + 86_400_000,
    });
    writeFileSync(file, JSON.stringify(old));
    const store = storeWithDefaults(file);
    const ada = store.user("user_seed_ada")!;
    expect(userJSON(store, ada, "bapi")).toMatchObject({
      totp_enabled: false,
      backup_code_enabled: false,
      two_factor_enabled: false,
      mfa_enabled_at: null,
      mfa_disabled_at: null,
    });
    expect(secondFactorsOf(store, ada)).toEqual([]);
    expect(sessionJSON(store, store.session("sess_old")!, null).factor_verification_age).toEqual([30, -1]);

    // And takes MFA from there.
    importTotp(store, ada, RFC_SECRET);
    expect(twoFactorEnabled(store, ada)).toBe(true);
    expect(userJSON(store, ada, "bapi")).toMatchObject({ totp_enabled: true, two_factor_enabled: true });
  });
});
