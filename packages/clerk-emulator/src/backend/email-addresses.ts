import type { Request } from "express";
import { parseEmail } from "../domain/invitations";
import { deletedJSON, emailAddressJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { CodeVerificationRecord, EmailRecord, UserRecord } from "../state/store";
import {
  addEmailAddress,
  attemptEmailVerification,
  prepareEmailVerification,
  removeEmailAddress,
  replaceEmailAddresses,
  updateEmailAddress,
} from "../domain/email-addresses";
import { identificationStatus, type BackendContext, type Route } from "./context";
import { isTrue } from "./declarations";

/**
 * Email addresses through the Backend API, kept in the same records the
 * Frontend API's `/v1/me/email_addresses` uses: an address belongs to one
 * user, the primary one must be verified and cannot be deleted, and only a
 * verified address signs in.
 */
export function registerEmailAddressRoutes(route: Route, { store, userOf }: BackendContext): void {
  const emailById = (req: Request, param = "id"): { user: UserRecord; email: EmailRecord } => {
    const id = String(req.params[param]);
    for (const user of store.all("users")) {
      const email = user.emails.find((e) => e.id === id);
      if (email) return { user, email };
    }
    throw new ApiError(404, "resource_not_found", "Email address not found");
  };

  route(
    "POST",
    "/v1/email_addresses",
    {
      body: {
        user_id: "kept",
        email_address: "kept",
        verified: "kept",
        primary: "kept",
        // No email is ever sent but verification codes.
        notify_primary_email_address_changed: "flag",
      },
    },
    (req) => {
      const userId = str(req.body?.user_id);
      if (!userId) throw new ApiError(422, "form_param_missing", "Enter user_id.", "user_id");
      const user = store.user(userId);
      if (!user) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
      const email = addEmailAddress(store, user, parseEmail(req.body?.email_address), {
        verified: isTrue(req.body?.verified),
        primary: isTrue(req.body?.primary),
      });
      return emailAddressJSON(email);
    },
  );

  route("GET", "/v1/email_addresses/:id", { query: [] }, (req) => emailAddressJSON(emailById(req).email));

  route(
    "PATCH",
    "/v1/email_addresses/:id",
    { body: { verified: "kept", primary: "kept", notify_primary_email_address_changed: "flag" } },
    (req) => {
      const { user, email } = emailById(req);
      const verified: unknown = req.body?.verified;
      const changes = {
        verified: verified === undefined || verified === null ? undefined : isTrue(verified),
        primary: isTrue(req.body?.primary),
      };
      return emailAddressJSON(updateEmailAddress(store, user, email, changes));
    },
  );

  route("DELETE", "/v1/email_addresses/:id", { body: {} }, (req) => {
    const { user, email } = emailById(req);
    removeEmailAddress(store, user, email, "admin");
    return deletedJSON("email_address", email.id);
  });

  const verificationJSON = (v: CodeVerificationRecord) => ({
    object: "verification",
    id: v.id,
    status: v.status,
    strategy: "email_code",
    attempts: v.attempts,
    expire_at: v.expireAt,
    channel: null,
  });

  // The code is always the test code; the email that carries it is an `email.created` webhook.
  route("POST", "/v1/email_addresses/:id/prepare_verification", { body: {} }, (req) => {
    const { user, email } = emailById(req);
    return verificationJSON(prepareEmailVerification(store, user, email, req.get("user-agent") ?? null));
  });

  // A wrong or late code is told through the status, not as an error; a spent verification is.
  route(
    "POST",
    "/v1/email_addresses/:id/attempt_verification",
    { body: { verification_id: "kept", code: "kept" } },
    (req) => {
      const { user, email } = emailById(req);
      const id = str(req.body?.verification_id);
      if (!id) throw new ApiError(422, "form_param_missing", "Enter verification_id.", "verification_id");
      const code = str(req.body?.code);
      if (code === null) throw new ApiError(422, "form_param_missing", "Enter code.", "code");
      return verificationJSON(attemptEmailVerification(store, user, email, id, code));
    },
  );

  // Every address the user had goes; the new one is primary, verified unless asked otherwise.
  route(
    "PUT",
    "/v1/users/:id/email_address",
    {
      body: {
        email_address: "kept",
        identification_status: "kept",
        notify_primary_email_address_changed: "flag",
      },
    },
    (req) => {
      const user = userOf(req);
      const address = parseEmail(req.body?.email_address);
      const status = identificationStatus(req.body?.identification_status, "addresses");
      return emailAddressJSON(replaceEmailAddresses(store, user, address, status === "verified"));
    },
  );
}
