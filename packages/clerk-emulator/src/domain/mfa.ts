import { createHmac, randomBytes, randomInt, timingSafeEqual } from "node:crypto";
import { newId } from "../state/ids";
import { ApiError } from "./errors";
import { isSentCode, textCode } from "./verification-codes";
import {
  type FactorStatus,
  type MfaSecretsRecord,
  type PhoneRecord,
  type SessionRecord,
  type Store,
  type UserMfaFlags,
  type UserRecord,
} from "../state/store";

/**
 * Multi-factor authentication: a TOTP authenticator (RFC 6238: SHA-1, six
 * digits, 30-second steps, as Clerk's and every authenticator app's default),
 * SMS codes to a phone number reserved for them (sms-second-factor.ts reserves
 * one) and backup codes. Each kind is one entry of SECOND_FACTOR_SOURCES.
 */

const STEP_SECONDS = 30;
const DIGITS = 6;
/** Clerk hands out ten backup codes at a time. */
const BACKUP_CODE_COUNT = 10;

// RFC 4648 base32, the alphabet authenticator apps read secrets in.
const BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";

function base32Encode(bytes: Buffer): string {
  let bits = 0;
  let value = 0;
  let out = "";
  for (const byte of bytes) {
    value = (value << 8) | byte;
    bits += 8;
    while (bits >= 5) {
      out += BASE32[(value >>> (bits - 5)) & 31];
      bits -= 5;
    }
  }
  if (bits > 0) out += BASE32[(value << (5 - bits)) & 31];
  return out;
}

function base32Decode(text: string): Buffer {
  let bits = 0;
  let value = 0;
  const out: number[] = [];
  for (const char of text.replace(/=+$/, "").toUpperCase()) {
    const index = BASE32.indexOf(char);
    if (index === -1) continue;
    value = (value << 5) | index;
    bits += 5;
    if (bits >= 8) {
      out.push((value >>> (bits - 8)) & 255);
      bits -= 8;
    }
  }
  return Buffer.from(out);
}

/** A new TOTP secret: 160 bits (RFC 4226's recommendation), 32 base32 characters. */
export const newTotpSecret = () => base32Encode(randomBytes(20));

/** The code an authenticator shows for `secret` at `timeMs` (RFC 6238 over RFC 4226's HOTP). */
export function totpCode(secret: string, timeMs = Date.now()): string {
  const counter = Buffer.alloc(8);
  counter.writeBigUInt64BE(BigInt(Math.floor(timeMs / 1000 / STEP_SECONDS)));
  const hmac = createHmac("sha1", base32Decode(secret)).update(counter).digest();
  const offset = hmac[hmac.length - 1]! & 15;
  const binary = hmac.readUInt32BE(offset) & 0x7fffffff;
  return String(binary % 10 ** DIGITS).padStart(DIGITS, "0");
}

/** Whether `code` is the secret's code for now or the step either side (a clock a little off, a slow typist). */
export function totpMatches(secret: string, code: string, nowMs = Date.now()): boolean {
  const given = Buffer.from(code.trim());
  return [-1, 0, 1].some((step) => {
    const expected = Buffer.from(totpCode(secret, nowMs + step * STEP_SECONDS * 1000));
    return expected.length === given.length && timingSafeEqual(expected, given);
  });
}

/**
 * The `otpauth://` URI an authenticator app scans (Google Authenticator's key URI format). Its values are
 * percent-encoded (a space is `%20`): authenticator apps do not read `+` as a space, as a form would.
 */
export function totpUri(secret: string, issuer: string, account: string): string {
  const label = encodeURIComponent(`${issuer}:${account}`);
  const query = Object.entries({ issuer, secret, algorithm: "SHA1", digits: String(DIGITS), period: "30" })
    .map(([name, value]) => `${name}=${encodeURIComponent(value)}`)
    .join("&");
  return `otpauth://totp/${label}?${query}`;
}

const CODE_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789";
const newBackupCode = () => Array.from({ length: 8 }, () => CODE_ALPHABET[randomInt(CODE_ALPHABET.length)]).join("");

// Records ---------------------------------------------------------------------

export type Totp = NonNullable<MfaSecretsRecord["totp"]>;

/** The user's MFA flags, off for a user from a state file older than MFA. */
export function mfaFlagsOf(user: UserRecord): UserMfaFlags {
  return (
    user.mfa ?? {
      totpEnabled: false,
      backupCodeEnabled: false,
      twoFactorEnabled: false,
      enabledAt: null,
      disabledAt: null,
    }
  );
}

/** The user's secrets, or null: reading never adds a record. */
const storedSecrets = (store: Store, userId: string) => store.state.mfaSecrets.find((s) => s.userId === userId) ?? null;

/** The user's secrets, a record made for them if they had none (for a change). */
export function mfaSecretsOf(store: Store, userId: string): MfaSecretsRecord {
  const found = store.find("mfaSecrets", (s) => s.userId === userId);
  if (found) return found;
  const secrets: MfaSecretsRecord = { userId, totp: null, backupCodes: null };
  store.write((state) => state.mfaSecrets.push(secrets));
  return secrets;
}

// Second factors ----------------------------------------------------------------

/** A second factor as a sign-in or a reverification lists it (`Stubs.SignInFactor`). */
export type SecondFactorJSON = { strategy: string } & Record<string, unknown>;

type SecondFactorSource = {
  strategy: string;
  /** Whether having it is "two-factor enabled" (backup codes alone are not: they back another factor up). */
  isTwoFactor: boolean;
  /** This user's factors of the kind (none when they have not set it up). */
  factors: (store: Store, user: UserRecord) => SecondFactorJSON[];
  /** Checks a code; true if it is right (a backup code is then used up). */
  attempt: (store: Store, user: UserRecord, code: string) => boolean;
  /** Takes the factor away (the Backend API's "disable MFA"). */
  remove: (store: Store, user: UserRecord) => void;
  /** Sends the code, for a kind that has one to send (a text message); TOTP and backup codes have none. */
  prepare?: (store: Store, user: UserRecord, options: PrepareOptions) => void;
};

/** What `prepare_second_factor` names: the number to text (`phone_number_id`; the default one without it). */
export type PrepareOptions = { phoneNumberId: string | null; userAgent: string | null };

const totpSource: SecondFactorSource = {
  strategy: "totp",
  isTwoFactor: true,
  factors: (store, user) => (storedSecrets(store, user.id)?.totp?.verified ? [{ strategy: "totp" }] : []),
  attempt: (store, user, code) => {
    const totp = storedSecrets(store, user.id)?.totp;
    return Boolean(totp?.verified && totpMatches(totp.secret, code));
  },
  remove: (store, user) => {
    if (storedSecrets(store, user.id)) mfaSecretsOf(store, user.id).totp = null;
  },
};

const backupCodeSource: SecondFactorSource = {
  strategy: "backup_code",
  isTwoFactor: false,
  factors: (store, user) =>
    storedSecrets(store, user.id)?.backupCodes?.codes.length ? [{ strategy: "backup_code" }] : [],
  attempt: (store, user, code) => spendBackupCode(store, user, code),
  remove: (store, user) => {
    if (storedSecrets(store, user.id)) mfaSecretsOf(store, user.id).backupCodes = null;
  },
};

/** The user's verified numbers reserved for SMS codes, the default one first. */
export function secondFactorPhonesOf(user: UserRecord): PhoneRecord[] {
  const reserved = user.phones.filter((p) => p.verified && p.reservedForSecondFactor);
  return [...reserved.filter((p) => p.defaultSecondFactor), ...reserved.filter((p) => !p.defaultSecondFactor)];
}

const phoneCodeSource: SecondFactorSource = {
  strategy: "phone_code",
  isTwoFactor: true,
  factors: (_store, user) =>
    secondFactorPhonesOf(user).map((p) => ({
      strategy: "phone_code",
      safe_identifier: p.phone,
      phone_number_id: p.id,
      default: Boolean(p.defaultSecondFactor),
    })),
  // The code texted is the test code, whichever reserved number it went to (verification-codes.ts).
  attempt: (_store, user, code) => secondFactorPhonesOf(user).length > 0 && isSentCode(code),
  remove: (_store, user) => {
    for (const phone of user.phones) {
      phone.reservedForSecondFactor = false;
      phone.defaultSecondFactor = false;
    }
  },
  prepare: (store, user, { phoneNumberId }) => {
    const phones = secondFactorPhonesOf(user);
    const phone = phoneNumberId ? phones.find((p) => p.id === phoneNumberId) : phones[0];
    if (!phone) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "phone_number_id",
        "That phone number is not a second factor of this account.",
      );
    }
    textCode(store, phone.phone, phone.id, user.id);
  },
};

/** Every kind of second factor the instance offers, in the order clerk-js prefers them. */
const SECOND_FACTOR_SOURCES: readonly SecondFactorSource[] = [totpSource, phoneCodeSource, backupCodeSource];

/** The strategies the environment advertises as second factors. */
export const SECOND_FACTOR_STRATEGIES = SECOND_FACTOR_SOURCES.map((s) => s.strategy);

export function secondFactorsOf(store: Store, user: UserRecord): SecondFactorJSON[] {
  return SECOND_FACTOR_SOURCES.flatMap((source) => source.factors(store, user));
}

/** Whether signing in needs a second factor: the user has one that is not only backup codes. */
export function twoFactorEnabled(store: Store, user: UserRecord): boolean {
  return SECOND_FACTOR_SOURCES.some((source) => source.isTwoFactor && source.factors(store, user).length > 0);
}

/**
 * Checks a second factor's code: Clerk's 422 `strategy_for_user_invalid` for a
 * kind the user has not set up, `form_code_incorrect` for a wrong code.
 */
export function checkSecondFactor(store: Store, user: UserRecord, strategy: string | null, code: string | null): void {
  const source = SECOND_FACTOR_SOURCES.find((s) => s.strategy === strategy);
  if (!source || source.factors(store, user).length === 0) {
    throw new ApiError(
      422,
      "strategy_for_user_invalid",
      "That verification strategy is not valid for this account.",
      "strategy",
    );
  }
  if (!code || !source.attempt(store, user, code)) {
    throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  }
}

/**
 * Prepares a second factor (`prepare_second_factor`) for a step that asks for one (a sign-in, a
 * reverification): sends its code, and the step waits for it, unverified. A kind with nothing to send,
 * or one the user has not set up, is Clerk's 422.
 */
export function prepareSecondFactor(
  store: Store,
  step: { secondFactor?: { strategy: string; status: FactorStatus } | null },
  user: UserRecord,
  strategy: string | null,
  options: PrepareOptions,
): void {
  const source = SECOND_FACTOR_SOURCES.find((s) => s.strategy === strategy);
  if (!strategy || !source?.prepare || source.factors(store, user).length === 0) {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      "strategy",
      `${strategy ?? "(none)"} is not a second factor that can be prepared for this account.`,
    );
  }
  source.prepare(store, user, options);
  store.write(() => {
    step.secondFactor = { strategy, status: "unverified" };
  });
}

// Changes ---------------------------------------------------------------------

/**
 * Brings the user's flags in line with their secrets: `mfa_enabled_at` when
 * two-factor goes on, `mfa_disabled_at` when it goes off. A change to the
 * flags is a change to the user (and so `user.updated`).
 */
export function syncMfaFlags(store: Store, user: UserRecord): void {
  const secrets = mfaSecretsOf(store, user.id);
  const before = mfaFlagsOf(user);
  const now = Date.now();
  const on = twoFactorEnabled(store, user);
  const after: UserMfaFlags = {
    totpEnabled: Boolean(secrets.totp?.verified),
    backupCodeEnabled: Boolean(secrets.backupCodes?.codes.length),
    twoFactorEnabled: on,
    enabledAt: on && !before.twoFactorEnabled ? now : before.enabledAt,
    disabledAt: !on && before.twoFactorEnabled ? now : before.disabledAt,
  };
  if (JSON.stringify(after) === JSON.stringify(before)) return;
  store.write(() => {
    user.mfa = after;
    user.updatedAt = now;
  });
}

/** A new, unverified TOTP secret; refused while a verified one exists (Clerk's one TOTP per user). */
export function createTotp(store: Store, user: UserRecord) {
  if (storedSecrets(store, user.id)?.totp?.verified) {
    throw new ApiError(400, "totp_already_enabled", "TOTP is already enabled on your account.");
  }
  const now = Date.now();
  const totp = { id: newId("totp"), secret: newTotpSecret(), verified: false, createdAt: now, updatedAt: now };
  store.write(() => {
    mfaSecretsOf(store, user.id).totp = totp;
  });
  return totp;
}

/** The user's TOTP, being set up or on, or Clerk's 404. */
export function totpOf(store: Store, user: UserRecord): Totp {
  const totp = mfaSecretsOf(store, user.id).totp;
  if (!totp) throw new ApiError(404, "resource_not_found", "No authenticator app is being set up.");
  return totp;
}

/**
 * The first code from the authenticator app turns the TOTP being set up on
 * (Clerk's 400 if it is on already, 422 for a wrong code). Clerk hands out
 * backup codes with it when the person has none: those come back with it.
 */
export function verifyTotp(store: Store, user: UserRecord, code: string | null): { totp: Totp; codes?: string[] } {
  const totp = totpOf(store, user);
  if (totp.verified) throw new ApiError(400, "totp_already_enabled", "TOTP is already enabled on your account.");
  if (!code || !totpMatches(totp.secret, code)) {
    throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  }
  return store.write(() => {
    totp.verified = true;
    totp.updatedAt = Date.now();
    const codes = mfaSecretsOf(store, user.id).backupCodes ? undefined : replaceBackupCodes(store, user).codes;
    syncMfaFlags(store, user);
    return { totp, codes };
  });
}

/** New backup codes, replacing any left. */
export function replaceBackupCodes(store: Store, user: UserRecord, codes = newBackupCodesList()) {
  return store.write(() => {
    const secrets = mfaSecretsOf(store, user.id);
    const now = Date.now();
    const backup = { id: secrets.backupCodes?.id ?? newId("bcode"), codes, createdAt: now, updatedAt: now };
    secrets.backupCodes = backup;
    syncMfaFlags(store, user);
    return backup;
  });
}

export const newBackupCodesList = () => Array.from({ length: BACKUP_CODE_COUNT }, newBackupCode);

function spendBackupCode(store: Store, user: UserRecord, code: string): boolean {
  const backup = store.find("mfaSecrets", (s) => s.userId === user.id)?.backupCodes;
  const wanted = code.trim().toLowerCase();
  if (!backup?.codes.includes(wanted)) return false;
  store.write(() => {
    backup.codes = backup.codes.filter((c) => c !== wanted);
    backup.updatedAt = Date.now();
    syncMfaFlags(store, user);
  });
  return true;
}

/** Removes the TOTP; with no two-factor method left, the backup codes go too (they would back up nothing). */
export function removeTotp(store: Store, user: UserRecord): void {
  store.write(() => {
    const secrets = mfaSecretsOf(store, user.id);
    secrets.totp = null;
    if (!twoFactorEnabled(store, user)) secrets.backupCodes = null;
    syncMfaFlags(store, user);
  });
}

/** Every second factor of the user's gone at once. */
export function disableMfa(store: Store, user: UserRecord): void {
  store.write(() => {
    for (const source of SECOND_FACTOR_SOURCES) source.remove(store, user);
    syncMfaFlags(store, user);
  });
}

/** A TOTP secret set from outside (the Backend API's `totp_secret`): verified at once, as Clerk takes it. */
export function importTotp(store: Store, user: UserRecord, secret: string): void {
  const now = Date.now();
  store.write(() => {
    mfaSecretsOf(store, user.id).totp = { id: newId("totp"), secret, verified: true, createdAt: now, updatedAt: now };
    syncMfaFlags(store, user);
  });
}

/** Whether `text` is a usable base32 TOTP secret (at least 80 bits, as RFC 4226 requires at the least). */
export function isTotpSecret(text: string): boolean {
  return /^[A-Z2-7]+=*$/i.test(text) && base32Decode(text).length >= 10;
}

export function removeBackupCodes(store: Store, user: UserRecord): void {
  store.write(() => {
    mfaSecretsOf(store, user.id).backupCodes = null;
    syncMfaFlags(store, user);
  });
}

// Factor ages (`fva`) -----------------------------------------------------------

/** Minutes since the session's first and second factor were verified; -1 for a second factor never verified. */
export function factorVerificationAge(session: SessionRecord, nowMs = Date.now()): [number, number] {
  const at = session.factorsVerifiedAt ?? { first: session.createdAt, second: null };
  const minutes = (t: number) => Math.max(0, Math.floor((nowMs - t) / 60_000));
  return [minutes(at.first), at.second === null ? -1 : minutes(at.second)];
}

/** Records a factor verified on the session now (a sign-in's or a reverification's). */
export function markFactorVerified(session: SessionRecord, which: "first" | "second", nowMs = Date.now()): void {
  const at = session.factorsVerifiedAt ?? { first: session.createdAt, second: null };
  session.factorsVerifiedAt = { ...at, [which]: nowMs };
}
