import { ApiError } from "./errors";

/** The instance's password rules (its environment says 8 to 72 characters). */
export function validateNewPassword(password: string | null, param = "password"): string {
  if (!password) throw new ApiError(422, "form_param_missing", "Enter a password.", param);
  if (password.length < 8) {
    throw new ApiError(422, "form_password_length_too_short", "Passwords must be 8 characters or more.", param);
  }
  if (password.length > 72) {
    throw new ApiError(422, "form_password_length_too_long", "Passwords must be 72 characters or fewer.", param);
  }
  return password;
}
