import { parsePhone } from "../domain/identifiers";
import {
  addPhoneNumber,
  attemptPhoneVerification,
  preparePhoneVerification,
  removePhoneNumber,
  replacePhoneNumbers,
  updatePhoneNumber,
} from "../domain/phone-numbers";
import { deletedJSON, phoneNumberJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { CodeVerificationRecord, PhoneRecord, UserRecord } from "../state/store";
import { identificationStatus, type BackendContext, type Route } from "./context";
import { bodyOf, isTrue } from "./declarations";

const verificationJSON = (v: CodeVerificationRecord) => ({
  object: "verification_otp",
  id: v.id,
  status: v.status,
  strategy: "phone_code",
  attempts: v.attempts,
  expire_at: v.expireAt,
});

/** Phone numbers: add one to a user, read, update (verified, primary), remove, verify by a texted code; replace them all. */
export function registerPhoneNumberRoutes(route: Route, { store, userOf }: BackendContext): void {
  const phoneById = (id: unknown): { user: UserRecord; phone: PhoneRecord } => {
    for (const user of store.all("users")) {
      const phone = user.phones.find((p) => p.id === id);
      if (phone) return { user, phone };
    }
    throw new ApiError(404, "resource_not_found", "Phone number not found");
  };

  // `reserved_for_second_factor: true` needs `verified: true` too (Clerk's description): else a 422.
  route(
    "POST",
    "/v1/phone_numbers",
    {
      body: {
        user_id: "kept",
        phone_number: "kept",
        verified: "kept",
        primary: "kept",
        reserved_for_second_factor: "kept",
      },
    },
    (req) => {
      const body = bodyOf(req.body);
      const user = store.user(str(body.user_id) ?? "");
      if (!user) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
      const phone = addPhoneNumber(store, user, parsePhone(body.phone_number), {
        verifiedBy: isTrue(body.verified) ? "admin" : null,
        primary: isTrue(body.primary),
        reserved: isTrue(body.reserved_for_second_factor),
      });
      return phoneNumberJSON(phone);
    },
  );

  route("GET", "/v1/phone_numbers/:id", { query: [] }, (req) => phoneNumberJSON(phoneById(req.params.id).phone));

  route(
    "PATCH",
    "/v1/phone_numbers/:id",
    {
      body: {
        verified: "kept",
        primary: "kept",
        reserved_for_second_factor: "kept",
      },
    },
    (req) => {
      const body = bodyOf(req.body);
      const { user, phone } = phoneById(req.params.id);
      // `verified: false` takes the verification away; the number is no longer primary then.
      const verified = isTrue(body.verified)
        ? true
        : body.verified === false || body.verified === "false"
          ? false
          : undefined;
      const reserved = isTrue(body.reserved_for_second_factor)
        ? true
        : body.reserved_for_second_factor === false || body.reserved_for_second_factor === "false"
          ? false
          : undefined;
      return phoneNumberJSON(
        updatePhoneNumber(store, user, phone, { verified, primary: isTrue(body.primary), reserved }),
      );
    },
  );

  route("DELETE", "/v1/phone_numbers/:id", { body: {} }, (req) => {
    const { user, phone } = phoneById(req.params.id);
    removePhoneNumber(store, user, phone);
    return deletedJSON("phone_number", phone.id);
  });

  route("POST", "/v1/phone_numbers/:id/prepare_verification", { body: {} }, (req) => {
    const { user, phone } = phoneById(req.params.id);
    return verificationJSON(preparePhoneVerification(store, user, phone));
  });

  // A wrong or late code is told through the verification's status, not as an error (Clerk's description).
  route(
    "POST",
    "/v1/phone_numbers/:id/attempt_verification",
    { body: { verification_id: "kept", code: "kept" } },
    (req) => {
      const body = bodyOf(req.body);
      const { user, phone } = phoneById(req.params.id);
      const code = str(body.code);
      if (code === null) throw new ApiError(422, "form_param_missing", "Enter code.", "code");
      return verificationJSON(attemptPhoneVerification(store, user, phone, str(body.verification_id) ?? "", code));
    },
  );

  // All the user's numbers replaced by one primary number (verified unless asked otherwise).
  route(
    "PUT",
    "/v1/users/:id/phone_number",
    { body: { phone_number: "kept", identification_status: "kept" } },
    (req) => {
      const user = userOf(req);
      const body = bodyOf(req.body);
      const number = parsePhone(body.phone_number);
      const status = identificationStatus(body.identification_status, "phone numbers");
      // An unverified number cannot be primary: the user then has none until it is verified.
      return phoneNumberJSON(replacePhoneNumbers(store, user, number, status === "verified"));
    },
  );
}
