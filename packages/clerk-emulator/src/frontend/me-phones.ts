import { parsePhone, phoneOf } from "../domain/identifiers";
import { addPhoneNumber, removePhoneNumber, verifyPhoneNumber } from "../domain/phone-numbers";
import { deletedJSON, phoneNumberJSON } from "../json";
import { strategyNotAllowed } from "../domain/errors";
import { str } from "../http/routing";
import type { FrontendContext, Route } from "./context";
import { refuseWrongCode, textCode } from "../domain/verification-codes";
import { changeSecondFactorPhone } from "../domain/sms-second-factor";

/** The signed-in person's phone numbers: add one, verify it with a texted code, reserve it for SMS codes as a second factor, remove it. */
export function registerPhoneRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, meReverified, reply } = fapi;

  route("GET", "/v1/me/phone_numbers", (req) => me(req).user.phones.map((p) => phoneNumberJSON(p)));

  // A new number is unverified: reserving it for a second factor waits until it is verified (Clerk's 422).
  route("POST", "/v1/me/phone_numbers", (req, res) => {
    const { user } = meReverified(req);
    const phone = addPhoneNumber(store, user, parsePhone(req.body?.phone_number), {
      reserved: flag(req.body?.reserved_for_second_factor) === true,
    });
    return reply(req, res, phoneNumberJSON(phone));
  });

  route("GET", "/v1/me/phone_numbers/:id", (req, res) =>
    reply(req, res, phoneNumberJSON(phoneOf(me(req).user, req.params.id))),
  );

  // Only a second factor's settings change here: <UserProfile/>'s "SMS code" reserves a verified number, and
  // the person's first two-factor method comes with backup codes, on this answer only.
  route("PATCH", "/v1/me/phone_numbers/:id", (req, res) => {
    const { user } = me(req);
    const phone = phoneOf(user, req.params.id);
    const { backupCodes } = changeSecondFactorPhone(
      store,
      user,
      phone,
      { reserved: flag(req.body?.reserved_for_second_factor), isDefault: flag(req.body?.default_second_factor) },
      { handOutBackupCodes: true },
    );
    return reply(req, res, phoneNumberJSON(phone, backupCodes));
  });

  route("POST", "/v1/me/phone_numbers/:id/prepare_verification", (req, res) => {
    const { user } = me(req);
    const phone = phoneOf(user, req.params.id);
    const strategy = str(req.body?.strategy) ?? "phone_code";
    if (strategy !== "phone_code") {
      throw strategyNotAllowed(strategy);
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

/** A boolean form field as clerk-js sends it (`true`/`false`); absent or empty: unchanged. */
function flag(value: unknown): boolean | undefined {
  if (value === true || value === "true") return true;
  if (value === false || value === "false") return false;
  return undefined;
}
