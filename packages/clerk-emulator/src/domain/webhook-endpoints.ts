import { randomBytes } from "node:crypto";
import { ApiError } from "./errors";
import type { Store } from "../state/store";

/**
 * The instance's Svix app, through which Clerk's webhooks reach their
 * endpoints: without one, the emulator sends none.
 */

/** Clerk's 400 when the instance has no Svix app. */
export function requireSvixApp(store: Store): void {
  if (!store.state.instance.svixApp) throw new ApiError(400, "svix_app_missing", "This instance has no Svix app.");
}

export function createSvixApp(store: Store): void {
  if (store.state.instance.svixApp) throw new ApiError(400, "svix_app_exists", "This instance already has a Svix app.");
  store.write((state) => {
    state.instance.svixApp = true;
  });
}

/** Stops every webhook until the app is created again. */
export function deleteSvixApp(store: Store): void {
  requireSvixApp(store);
  store.write((state) => {
    state.instance.svixApp = false;
  });
}

/** `svix_url`'s read-only portal: each address is a fresh secret, kept in the store's memory until a reset. */
export function createWebhookPortalToken(store: Store): string {
  const token = randomBytes(24).toString("hex");
  store.write((_state, memory) => memory.webhookPortalTokens.add(token));
  return token;
}

export function isWebhookPortalToken(store: Store, token: string): boolean {
  return store.memory.webhookPortalTokens.has(token);
}
