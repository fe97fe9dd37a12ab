import { deletedJSON, userJSON } from "../json";
import { passkeysOf } from "../json/passkeys";
import { ApiError } from "../domain/errors";
import { removePasskey } from "../domain/passkeys";
import {
  removeExternalAccount,
  removeProfileImage,
  replaceUserMetadata,
  setProfileImage,
} from "../domain/user-profile";
import { readImageUpload } from "../http/uploads";
import type { BackendContext, Route } from "./context";
import { USER_METADATA_FIELDS } from "./users";

/** A user's profile image (uploaded as a multipart form, as @clerk/backend sends it) and their metadata replaced whole. */
export function registerUserProfileRoutes(route: Route, { store, userOf }: BackendContext): void {
  route("POST", "/v1/users/:id/profile_image", { body: { file: "kept" } }, async (req) => {
    const user = userOf(req);
    setProfileImage(store, user, await readImageUpload(req));
    return userJSON(store, user, "bapi");
  });
  // Without an image there is nothing to remove: the user comes back as they are.
  route("DELETE", "/v1/users/:id/profile_image", { body: {} }, (req) => {
    const user = userOf(req);
    removeProfileImage(store, user);
    return userJSON(store, user, "bapi");
  });

  // One of the user's registered passkeys (`users.deleteUserPasskey`): it no longer signs them in.
  route("DELETE", "/v1/users/:id/passkeys/:passkeyId", { body: {} }, (req) => {
    const user = userOf(req);
    const passkey = passkeysOf(store, user.id).find((p) => p.id === req.params.passkeyId);
    if (!passkey) throw new ApiError(404, "resource_not_found", "Passkey not found");
    removePasskey(store, user, passkey);
    return deletedJSON("passkey", passkey.id);
  });

  // An OAuth account linked to the user (`users.deleteUserExternalAccount`): the emulator links none.
  route("DELETE", "/v1/users/:id/external_accounts/:externalAccountId", { body: {} }, (req) => {
    removeExternalAccount(userOf(req), String(req.params.externalAccountId));
  });

  // Unlike PATCH (a deep merge), each metadata field given replaces the old one whole; the others stay.
  route("PUT", "/v1/users/:id/metadata", { body: USER_METADATA_FIELDS }, (req) => {
    const user = userOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    replaceUserMetadata(store, user, {
      public: body.public_metadata,
      private: body.private_metadata,
      unsafe: body.unsafe_metadata,
    });
    return userJSON(store, user, "bapi");
  });
}
