import { parseMetadata, mergeMetadata } from "../domain/metadata";
import { activeSessionJSON, deletedJSON, sessionJSON, userJSON } from "../json";
import { removeAccount } from "../domain/accounts";
import { applyIdentifierChanges } from "../domain/identifiers";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { hashPassword, verifyPassword } from "../state/store";
import { readImageUpload } from "../http/uploads";
import { validateNewPassword } from "../domain/passwords";
import type { FrontendContext, Route } from "./context";

/** The signed-in person's own account, as `<UserProfile/>` changes it. */
export function registerMeRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, reply, currentClient, envelope, setClientCookies } = fapi;

  route("GET", "/v1/me", (req, res) => reply(req, res, userJSON(store, me(req).user, "fapi")));

  route("PATCH", "/v1/me", (req, res) => {
    const { user } = me(req);
    applyIdentifierChanges(store, user, req.body ?? {});
    const first = str(req.body?.first_name);
    const last = str(req.body?.last_name);
    if (first !== null) user.firstName = first.trim().slice(0, 100) || null;
    if (last !== null) user.lastName = last.trim().slice(0, 100) || null;
    const primary = str(req.body?.primary_email_address_id);
    if (primary !== null) {
      const email = user.emails.find((e) => e.id === primary);
      if (!email) throw new ApiError(404, "resource_not_found", "Email address not found", "primary_email_address_id");
      if (!email.verified) {
        throw new ApiError(
          422,
          "form_param_value_invalid",
          "Verify this email address before making it primary.",
          "primary_email_address_id",
        );
      }
      user.email = email.email;
      user.emailId = email.id;
    }
    // clerk-js sends the whole object as JSON: it replaces what was there.
    if (req.body?.unsafe_metadata !== undefined)
      user.unsafeMetadata = parseMetadata(req.body.unsafe_metadata, "unsafe_metadata");
    user.updatedAt = Date.now();
    store.changed();
    return reply(req, res, userJSON(store, user, "fapi"));
  });

  // Clerk's merge: nested objects merge, a key set to null goes.
  route("PATCH", "/v1/me/metadata", (req, res) => {
    const { user } = me(req);
    user.unsafeMetadata = mergeMetadata(
      user.unsafeMetadata,
      parseMetadata(req.body?.unsafe_metadata ?? "{}", "unsafe_metadata"),
    );
    user.updatedAt = Date.now();
    store.changed();
    return reply(req, res, userJSON(store, user, "fapi"));
  });

  route("POST", "/v1/me/change_password", (req, res) => {
    const { session, user } = me(req);
    const current = str(req.body?.current_password);
    if (user.passwordHash && (!current || !verifyPassword(current, user.passwordHash))) {
      throw new ApiError(422, "form_password_incorrect", "Password is incorrect. Try again.", "current_password");
    }
    const next = validateNewPassword(str(req.body?.new_password), "new_password");
    user.passwordHash = hashPassword(next);
    user.passwordUpdatedAt = Date.now();
    user.passwordCompromised = false;
    user.updatedAt = user.passwordUpdatedAt;
    if (str(req.body?.sign_out_of_other_sessions) === "true" || req.body?.sign_out_of_other_sessions === true) {
      for (const other of store.state.sessions) {
        if (other.userId === user.id && other.id !== session.id && other.status === "active") {
          store.endSession(other, "revoked");
        }
      }
    }
    store.changed();
    return reply(req, res, userJSON(store, user, "fapi"));
  });

  route("POST", "/v1/me/profile_image", async (req, res) => {
    const { user } = me(req);
    const upload = await readImageUpload(req);
    const image = store.saveImage(upload);
    store.deleteImage(user.imageId);
    user.imageId = image.id;
    user.updatedAt = Date.now();
    store.changed();
    return reply(req, res, {
      object: "image",
      id: image.id,
      name: image.name,
      public_url: `${store.settings.publicUrl}/images/${image.id}`,
    });
  });

  route("DELETE", "/v1/me/profile_image", (req, res) => {
    const { user } = me(req);
    if (!user.imageId) throw new ApiError(404, "resource_not_found", "There is no profile image to remove.");
    const id = user.imageId;
    store.deleteImage(id);
    user.imageId = null;
    user.updatedAt = Date.now();
    store.changed();
    return reply(req, res, deletedJSON("image", id));
  });

  // The person's devices: every active session of theirs, on any browser.
  const activeSessionsOf = (userId: string) =>
    store.state.sessions.filter((s) => s.userId === userId && s.status === "active" && s.expireAt > Date.now());

  route("GET", "/v1/me/sessions/active", (req) => activeSessionsOf(me(req).user.id).map(activeSessionJSON));

  route("GET", "/v1/me/sessions", (req) =>
    store.state.sessions
      .filter((s) => s.userId === me(req).user.id)
      .map((s) => ({ ...sessionJSON(store, s, null), user: undefined })),
  );

  route("POST", "/v1/me/sessions/:id/revoke", (req, res) => {
    const { user } = me(req);
    const target = store.session(String(req.params.id));
    if (!target || target.userId !== user.id) throw new ApiError(404, "resource_not_found", "Session not found");
    if (target.status === "active") store.endSession(target, "revoked");
    return reply(req, res, { ...sessionJSON(store, target, null), user: undefined });
  });

  route("DELETE", "/v1/me", (req, res) => {
    const { user } = me(req);
    removeAccount(store, user);
    const client = currentClient(req);
    setClientCookies(req, res, client);
    return envelope(req, res, client, deletedJSON("user", user.id));
  });
}
