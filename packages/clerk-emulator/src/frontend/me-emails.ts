import { parseEmail } from "../domain/invitations";
import { deletedJSON, emailAddressJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { UserRecord } from "../state/store";
import type { FrontendContext, Route } from "./context";
import { prepareEmailAddressLink } from "./email-links";
import { isSentCode, emailCode } from "../domain/verification-codes";
import { addEmailAddress, removeEmailAddress, verifyEmailAddress } from "../domain/email-addresses";

/** The signed-in person's email addresses: add one, verify it with a code, remove it. */
export function registerEmailRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, meReverified, reply } = fapi;

  const emailOf = (user: UserRecord, id: unknown) => {
    const email = user.emails.find((e) => e.id === id);
    if (!email) throw new ApiError(404, "resource_not_found", "Email address not found");
    return email;
  };

  route("GET", "/v1/me/email_addresses", (req) => me(req).user.emails.map(emailAddressJSON));

  route("POST", "/v1/me/email_addresses", (req, res) => {
    const { user } = meReverified(req);
    const email = addEmailAddress(store, user, parseEmail(req.body?.email_address));
    return reply(req, res, emailAddressJSON(email));
  });

  route("GET", "/v1/me/email_addresses/:id", (req, res) =>
    reply(req, res, emailAddressJSON(emailOf(me(req).user, req.params.id))),
  );

  // The code is always the test code; the email that carries it is only an `email.created` webhook.
  route("POST", "/v1/me/email_addresses/:id/prepare_verification", (req, res) => {
    const { user } = me(req);
    const email = emailOf(user, req.params.id);
    const strategy = str(req.body?.strategy) ?? "email_code";
    if (strategy === "email_link") {
      prepareEmailAddressLink(fapi, req, user, email);
      return reply(req, res, emailAddressJSON(email));
    }
    if (strategy !== "email_code") {
      throw new ApiError(422, "form_param_value_invalid", "Only email codes are available.", "strategy");
    }
    if (!email.verified) {
      const to = { address: email.email, emailAddressId: email.id, userId: user.id };
      emailCode(store, req.get("user-agent") ?? null, to);
    }
    return reply(req, res, emailAddressJSON(email));
  });

  route("POST", "/v1/me/email_addresses/:id/attempt_verification", (req, res) => {
    const { user } = me(req);
    const email = emailOf(user, req.params.id);
    if (!email.verified) {
      if (!isSentCode(req.body?.code)) {
        throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
      }
      verifyEmailAddress(store, user, email, "owner");
    }
    return reply(req, res, emailAddressJSON(email));
  });

  route("DELETE", "/v1/me/email_addresses/:id", (req, res) => {
    const { user } = me(req);
    const email = emailOf(user, req.params.id);
    removeEmailAddress(store, user, email, "owner");
    return reply(req, res, deletedJSON("email_address", email.id));
  });
}
