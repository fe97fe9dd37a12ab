import { asList, type BackendContext, type Route } from "./context";
import {
  checkSecondFactor,
  disableMfa,
  isTotpSecret,
  mfaSecretsOf,
  removeBackupCodes,
  removeTotp,
  secondFactorsOf,
} from "../domain/mfa";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { MfaFields } from "../domain/users";

/** `totp_secret` and `backup_codes` of `POST /v1/users` and `PATCH /v1/users/:id`, checked before anything changes. */
export function parseMfaFields(body: Record<string, unknown>): MfaFields {
  const out: MfaFields = {};
  if (body.totp_secret !== undefined && body.totp_secret !== null) {
    const secret = str(body.totp_secret)?.trim().replace(/\s+/g, "").toUpperCase() ?? "";
    if (!isTotpSecret(secret)) {
      throw new ApiError(
        422,
        "form_param_format_invalid",
        "invalid format",
        "totp_secret",
        "totp_secret must be a base32 secret of at least 16 characters.",
      );
    }
    out.totpSecret = secret;
  }
  if (body.backup_codes !== undefined && body.backup_codes !== null) {
    const codes = asList(body.backup_codes).map((c) => c.trim().toLowerCase());
    if (codes.length === 0 || codes.some((c) => c === "")) {
      throw new ApiError(422, "form_param_value_invalid", "backup_codes must be a list of codes.", "backup_codes");
    }
    out.backupCodes = [...new Set(codes)];
  }
  return out;
}

/** A user's second factors from the Backend API: check a code, take factors away. */
export function registerUserMfaRoutes(route: Route, { store, userOf }: BackendContext): void {
  // A TOTP code or, failing that, a backup code (used up when it matches).
  route("POST", "/v1/users/:id/verify_totp", { body: { code: "kept" } }, (req) => {
    const user = userOf(req);
    const code = str(req.body?.code);
    if (!code) throw new ApiError(422, "form_param_missing", "code must be included.", "code");
    const factors = secondFactorsOf(store, user).map((f) => f.strategy);
    if (!factors.includes("totp") && !factors.includes("backup_code")) {
      throw new ApiError(400, "totp_not_enabled", "The user does not have TOTP configured for their account.");
    }
    for (const codeType of ["totp", "backup_code"] as const) {
      if (!factors.includes(codeType)) continue;
      try {
        checkSecondFactor(store, user, codeType, code);
        return { verified: true, code_type: codeType };
      } catch {
        // Not this kind: try the next.
      }
    }
    throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
  });

  route("DELETE", "/v1/users/:id/mfa", { body: {} }, (req) => {
    const user = userOf(req);
    disableMfa(store, user);
    return { user_id: user.id };
  });

  route("DELETE", "/v1/users/:id/backup_code", { body: {} }, (req) => {
    const user = userOf(req);
    removeBackupCodes(store, user);
    return { user_id: user.id };
  });

  route("DELETE", "/v1/users/:id/totp", { body: {} }, (req) => {
    const user = userOf(req);
    if (mfaSecretsOf(store, user.id).totp) removeTotp(store, user);
    return { user_id: user.id };
  });
}
