import { banUser, lockAccount, unbanUser, unlockAccount } from "../domain/account-restrictions";
import {
  clearPasswordCompromised,
  markPasswordCompromised,
  passwordNotSetError,
  removePassword,
} from "../domain/passwords";
import { userJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { verifyPassword, type UserRecord } from "../state/store";
import { asList, type BackendContext, type Route } from "./context";
import { isTrue } from "./declarations";

/** Clerk takes 1 to 50 ids in a bulk ban or unban. */
const MAX_BULK_USERS = 50;

/**
 * Who may sign in: bans (one user or up to 50), locks, and the password's
 * standing (verify it, remove it, mark it compromised). Each change is the
 * user's `user.updated` webhook, which the webhook sender sees by itself.
 */
export function registerUserAccessRoutes(route: Route, { store, userOf }: BackendContext): void {
  const json = (user: UserRecord) => userJSON(store, user, "bapi");

  /** Every user `user_ids` names, each found before anything changes. */
  const bulkUsers = (body: unknown) => {
    const ids = asList((body as { user_ids?: unknown } | undefined)?.user_ids);
    if (ids.length === 0) throw new ApiError(422, "form_param_missing", "Enter user_ids.", "user_ids");
    if (ids.length > MAX_BULK_USERS) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        `user_ids must contain at most ${MAX_BULK_USERS} items.`,
        "user_ids",
      );
    }
    return [...new Set(ids)].map((id) => {
      const user = store.user(id);
      if (!user) throw new ApiError(404, "resource_not_found", `User not found: ${id}`, "user_ids");
      return user;
    });
  };

  route("POST", "/v1/users/:id/ban", { body: {} }, (req) => json(banUser(store, userOf(req))));
  route("POST", "/v1/users/:id/unban", { body: {} }, (req) => json(unbanUser(store, userOf(req))));
  route("POST", "/v1/users/ban", { body: { user_ids: "kept" } }, (req) =>
    bulkUsers(req.body).map((user) => json(banUser(store, user))),
  );
  route("POST", "/v1/users/unban", { body: { user_ids: "kept" } }, (req) =>
    bulkUsers(req.body).map((user) => json(unbanUser(store, user))),
  );

  // A lock lasts the instance's lockout duration (an hour, Clerk's default); its sessions stay.
  route("POST", "/v1/users/:id/lock", { body: {} }, (req) => json(lockAccount(store, userOf(req))));
  route("POST", "/v1/users/:id/unlock", { body: {} }, (req) => json(unlockAccount(store, userOf(req))));

  route("POST", "/v1/users/:id/verify_password", { body: { password: "kept" } }, (req) => {
    const user = userOf(req);
    const password = str(req.body?.password);
    if (password === null) throw new ApiError(422, "form_param_missing", "Enter password.", "password");
    if (!user.passwordHash) throw passwordNotSetError();
    if (!verifyPassword(password, user.passwordHash)) {
      throw new ApiError(422, "form_password_incorrect", "Password is incorrect.", "password");
    }
    return { verified: true };
  });

  // Without a password the user is returned unchanged (and no webhook is sent), as Clerk documents.
  route("POST", "/v1/users/:id/remove_password", { body: { sign_out_of_other_sessions: "flag" } }, (req) =>
    json(removePassword(store, userOf(req), { signOut: isTrue(req.body?.sign_out_of_other_sessions) })),
  );

  // A compromised password no longer signs in (`form_password_compromised`); an email code still does.
  route("POST", "/v1/users/:id/password/set_compromised", { body: { revoke_all_sessions: "flag" } }, (req) =>
    json(markPasswordCompromised(store, userOf(req), { revokeSessions: isTrue(req.body?.revoke_all_sessions) })),
  );
  route("POST", "/v1/users/:id/password/unset_compromised", { body: {} }, (req) =>
    json(clearPasswordCompromised(store, userOf(req))),
  );

  // Trusted devices are native iOS and Android apps' (`trusted_device_sign_in_enabled` is off): nobody has one.
  route("GET", "/v1/users/:id/trusted_devices", { query: [] }, (req) => {
    userOf(req);
    return { data: [], total_count: 0 };
  });
  route("DELETE", "/v1/users/:id/trusted_devices/:deviceId", { body: {} }, (req) => {
    userOf(req);
    throw new ApiError(404, "resource_not_found", "Trusted device not found");
  });
}
