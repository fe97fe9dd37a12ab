import { deletedJSON, userJSON } from "../json";
import { createTotp, removeTotp, replaceBackupCodes, totpOf, totpUri, verifyTotp, type Totp } from "../domain/mfa";
import { removeOwnPassword } from "../domain/passwords";
import { str } from "../http/routing";
import type { UserRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";

/** The signed-in person's second factors, as <UserProfile/>'s Security page sets them up, and removing a password. */
export function registerMeMfaRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply } = fapi;

  /** Clerk's TOTP object: the secret and its URI only while it is being set up. */
  const totpJSON = (user: UserRecord, totp: Totp, backupCodes?: string[]) => ({
    object: "totp",
    id: totp.id,
    secret: totp.verified ? null : totp.secret,
    uri: totp.verified ? null : totpUri(totp.secret, store.settings.applicationName, user.email),
    verified: totp.verified,
    ...(backupCodes ? { backup_codes: backupCodes } : {}),
    created_at: totp.createdAt,
    updated_at: totp.updatedAt,
  });

  route("POST", "/v1/me/totp", (req, res) => {
    const { user } = me(req);
    return reply(req, res, totpJSON(user, createTotp(store, user)));
  });

  // The first code from the app turns TOTP on; Clerk hands out backup codes with it when the person has none.
  route("POST", "/v1/me/totp/attempt_verification", (req, res) => {
    const { user } = me(req);
    const { totp, codes } = verifyTotp(store, user, str(req.body?.code));
    return reply(req, res, totpJSON(user, totp, codes));
  });

  route("DELETE", "/v1/me/totp", (req, res) => {
    const { user } = me(req);
    const totp = totpOf(store, user);
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
    removeOwnPassword(store, user, str(req.body?.current_password));
    return reply(req, res, userJSON(store, user, "fapi"));
  });
}
