import type { Request } from "express";
import { deletedJSON, userJSON } from "../json";
import {
  createTotp,
  mfaSecretsOf,
  removeTotp,
  replaceBackupCodes,
  syncMfaFlags,
  totpMatches,
  totpUri,
} from "../domain/mfa";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { verifyPassword, type MfaSecretsRecord, type UserRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";

type Totp = NonNullable<MfaSecretsRecord["totp"]>;

/** The signed-in person's second factors, as <UserProfile/>'s Security page sets them up, and removing a password. */
export function registerMeMfaRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply } = fapi;

  /** Clerk's TOTP object: the secret and its URI only while it is being set up. */
  const totpJSON = (user: UserRecord, totp: Totp, backupCodes?: string[]) => ({
    object: "totp",
    id: totp.id,
    secret: totp.verified ? null : totp.secret,
    uri: totp.verified ? null : totpUri(totp.secret, fapi.applicationName, user.email),
    verified: totp.verified,
    ...(backupCodes ? { backup_codes: backupCodes } : {}),
    created_at: totp.createdAt,
    updated_at: totp.updatedAt,
  });

  const pendingTotp = (req: Request) => {
    const { user } = me(req);
    const totp = mfaSecretsOf(store, user.id).totp;
    if (!totp) throw new ApiError(404, "resource_not_found", "No authenticator app is being set up.");
    return { user, totp };
  };

  route("POST", "/v1/me/totp", (req, res) => {
    const { user } = me(req);
    return reply(req, res, totpJSON(user, createTotp(store, user)));
  });

  // The first code from the app turns TOTP on; Clerk hands out backup codes with it when the person has none.
  route("POST", "/v1/me/totp/attempt_verification", (req, res) => {
    const { user, totp } = pendingTotp(req);
    if (totp.verified) throw new ApiError(400, "totp_already_enabled", "TOTP is already enabled on your account.");
    const code = str(req.body?.code);
    if (!code || !totpMatches(totp.secret, code)) {
      throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
    }
    totp.verified = true;
    totp.updatedAt = Date.now();
    const codes = mfaSecretsOf(store, user.id).backupCodes ? undefined : replaceBackupCodes(store, user).codes;
    syncMfaFlags(store, user);
    store.changed();
    return reply(req, res, totpJSON(user, totp, codes));
  });

  route("DELETE", "/v1/me/totp", (req, res) => {
    const { user, totp } = pendingTotp(req);
    removeTotp(store, user);
    return reply(req, res, deletedJSON("totp", totp.id));
  });

  // New codes replace the old ones, used or not.
  route("POST", "/v1/me/backup_codes", (req, res) => {
    const { user } = me(req);
    const backup = replaceBackupCodes(store, user);
    return reply(req, res, {
      object: "backup_code",
      id: backup.id,
      codes: backup.codes,
      created_at: backup.createdAt,
      updated_at: backup.updatedAt,
    });
  });

  route("POST", "/v1/me/remove_password", (req, res) => {
    const { user } = me(req);
    if (!user.passwordHash) {
      throw new ApiError(400, "no_password_set", "You have no password to remove.");
    }
    const current = str(req.body?.current_password);
    if (!current || !verifyPassword(current, user.passwordHash)) {
      throw new ApiError(422, "form_password_incorrect", "Password is incorrect. Try again.", "current_password");
    }
    user.passwordHash = null;
    user.passwordUpdatedAt = null;
    user.updatedAt = Date.now();
    store.changed();
    return reply(req, res, userJSON(store, user, "fapi"));
  });
}
