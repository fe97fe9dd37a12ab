import { randomBytes } from "node:crypto";
import type { Store } from "../state/store";

/**
 * Clerk's testing tokens (`POST /v1/testing_tokens`, which `@clerk/testing` calls): a Frontend API call that
 * carries a valid one gets `captcha_bypass`. Kept in the store's memory, gone with a reset.
 */

/** How long a testing token lasts: Clerk's last about an hour. */
const TESTING_TOKEN_TTL_MS = 60 * 60_000;

export function createTestingToken(store: Store): { token: string; expiresAt: number } {
  const token = `${Date.now()}-${randomBytes(16).toString("hex")}`;
  const expiresAt = Date.now() + TESTING_TOKEN_TTL_MS;
  store.write((_state, memory) => memory.testingTokens.set(token, expiresAt));
  return { token, expiresAt };
}

/** Whether `token` is one this emulator issued and has not expired. */
export function isTestingToken(store: Store, token: string | null): boolean {
  const expiresAt = token ? store.memory.testingTokens.get(token) : undefined;
  return expiresAt !== undefined && expiresAt > Date.now();
}
