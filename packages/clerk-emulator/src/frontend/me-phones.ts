import { parsePhone, phoneOf } from "../domain/identifiers";
import { addPhoneNumber, removePhoneNumber, verifyPhoneNumber } from "../domain/phone-numbers";
import { deletedJSON, phoneNumberJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { FrontendContext, Route } from "./context";
import { refuseWrongCode, textCode } from "../domain/verification-codes";

/** The signed-in person's phone numbers: add one, verify it with a texted code, remove it. */
export function registerPhoneRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply } = fapi;

  route("GET", "/v1/me/phone_numbers", (req) => me(req).user.phones.map(phoneNumberJSON));

  route("POST", "/v1/me/phone_numbers", (req, res) => {
    const { user } = me(req);
    refuseSecondFactor(req.body?.reserved_for_second_factor);
    const phone = addPhoneNumber(store, user, parsePhone(req.body?.phone_number));
    return reply(req, res, phoneNumberJSON(phone));
  });

  route("GET", "/v1/me/phone_numbers/:id", (req, res) =>
    reply(req, res, phoneNumberJSON(phoneOf(me(req).user, req.params.id))),
  );

  // Only a second factor's settings change here, and the instance has no SMS second factor.
  route("PATCH", "/v1/me/phone_numbers/:id", (req, res) => {
    const phone = phoneOf(me(req).user, req.params.id);
    refuseSecondFactor(req.body?.reserved_for_second_factor);
    refuseSecondFactor(req.body?.default_second_factor, "default_second_factor");
    return reply(req, res, phoneNumberJSON(phone));
  });

  route("POST", "/v1/me/phone_numbers/:id/prepare_verification", (req, res) => {
    const { user } = me(req);
    const phone = phoneOf(user, req.params.id);
    const strategy = str(req.body?.strategy) ?? "phone_code";
    if (strategy !== "phone_code") {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "strategy",
        `${strategy} does not match one of the allowed values for parameter strategy`,
      );
    }
    if (!phone.verified) textCode(store, phone.phone, phone.id, user.id);
    return reply(req, res, phoneNumberJSON(phone));
  });

  route("POST", "/v1/me/phone_numbers/:id/attempt_verification", (req, res) => {
    const { user } = me(req);
    const phone = phoneOf(user, req.params.id);
    if (!phone.verified) {
      refuseWrongCode(req.body?.code);
      verifyPhoneNumber(store, user, phone, "phone_code");
    }
    return reply(req, res, phoneNumberJSON(phone));
  });

  route("DELETE", "/v1/me/phone_numbers/:id", (req, res) => {
    const { user } = me(req);
    const phone = phoneOf(user, req.params.id);
    removePhoneNumber(store, user, phone);
    return reply(req, res, deletedJSON("phone_number", phone.id));
  });
}

/** The instance has no SMS second factor (another slice's MFA has TOTP and backup codes): asking for one is a 422. */
function refuseSecondFactor(value: unknown, param = "reserved_for_second_factor"): void {
  if (value === true || value === "true") {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      param,
      "SMS codes are not a second factor on this instance.",
    );
  }
}
