import { activeSessionJSON, deletedJSON, sessionJSON, userJSON } from "../json";
import { removeAccount } from "../domain/accounts";
import { mergeUserMetadata, removeProfileImage, setProfileImage, updateProfile } from "../domain/user-profile";
import { revokeOwnSession } from "../domain/sessions";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { readImageUpload } from "../http/uploads";
import { changePassword } from "../domain/passwords";
import type { FrontendContext, Route } from "./context";

/** The signed-in person's own account, as `<UserProfile/>` changes it. */
export function registerMeRoutes(route: Route, fapi: FrontendContext): void {
  const { store, me, meReverified, reply, currentClient, envelope, setClientCookies } = fapi;

  route("GET", "/v1/me", (req, res) => reply(req, res, userJSON(store, me(req).user, "fapi")));

  route("PATCH", "/v1/me", (req, res) => {
    const { user } = me(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    updateProfile(store, user, {
      identifiers: body,
      firstName: str(body.first_name),
      lastName: str(body.last_name),
      primaryEmailAddressId: str(body.primary_email_address_id),
      unsafeMetadata: body.unsafe_metadata,
    });
    return reply(req, res, userJSON(store, user, "fapi"));
  });

  // Clerk's merge: nested objects merge, a key set to null goes.
  route("PATCH", "/v1/me/metadata", (req, res) => {
    const { user } = me(req);
    mergeUserMetadata(store, user, { unsafe: req.body?.unsafe_metadata ?? "{}" });
    return reply(req, res, userJSON(store, user, "fapi"));
  });

  route("POST", "/v1/me/change_password", (req, res) => {
    const { session, user } = me(req);
    const signOut =
      str(req.body?.sign_out_of_other_sessions) === "true" || req.body?.sign_out_of_other_sessions === true;
    changePassword(store, session, user, {
      current: str(req.body?.current_password),
      next: str(req.body?.new_password),
      signOutOthers: signOut,
    });
    return reply(req, res, userJSON(store, user, "fapi"));
  });

  route("POST", "/v1/me/profile_image", async (req, res) => {
    const { user } = me(req);
    const image = setProfileImage(store, user, await readImageUpload(req));
    return reply(req, res, {
      object: "image",
      id: image.id,
      name: image.name,
      public_url: `${store.settings.publicUrl}/images/${image.id}`,
    });
  });

  route("DELETE", "/v1/me/profile_image", (req, res) => {
    const { user } = me(req);
    const id = removeProfileImage(store, user);
    if (!id) throw new ApiError(404, "resource_not_found", "There is no profile image to remove.");
    return reply(req, res, deletedJSON("image", id));
  });

  // The person's devices: every active session of theirs, on any browser.
  const activeSessionsOf = (userId: string) =>
    store.state.sessions.filter((s) => s.userId === userId && s.status === "active" && s.expireAt > Date.now());

  route("GET", "/v1/me/sessions/active", (req) =>
    activeSessionsOf(me(req).user.id).map((s) => activeSessionJSON(store, s)),
  );

  route("GET", "/v1/me/sessions", (req) =>
    store.state.sessions
      .filter((s) => s.userId === me(req).user.id)
      .map((s) => ({ ...sessionJSON(store, s, null), user: undefined })),
  );

  route("POST", "/v1/me/sessions/:id/revoke", (req, res) => {
    const target = revokeOwnSession(store, me(req).user, String(req.params.id));
    return reply(req, res, { ...sessionJSON(store, target, null), user: undefined });
  });

  route("DELETE", "/v1/me", (req, res) => {
    const { user } = meReverified(req);
    removeAccount(store, user);
    const client = currentClient(req);
    setClientCookies(req, res, client);
    return envelope(req, res, client, deletedJSON("user", user.id));
  });
}
