import { deletedJSON, userJSON } from "../json";
import { passkeysOf } from "../json/passkeys";
import { ApiError } from "../domain/errors";
import { parseMetadata } from "../domain/metadata";
import { readImageUpload } from "../http/uploads";
import type { BackendContext, Route } from "./context";

/** A user's profile image (uploaded as a multipart form, as @clerk/backend sends it) and their metadata replaced whole. */
export function registerUserProfileRoutes(route: Route, { store, userOf }: BackendContext): void {
  route("POST", "/v1/users/:id/profile_image", async (req) => {
    const user = userOf(req);
    const image = store.saveImage(await readImageUpload(req));
    store.deleteImage(user.imageId);
    user.imageId = image.id;
    user.updatedAt = Date.now();
    store.changed();
    return userJSON(store, user, "bapi");
  });
  // Without an image there is nothing to remove: the user comes back as they are.
  route("DELETE", "/v1/users/:id/profile_image", (req) => {
    const user = userOf(req);
    if (user.imageId) {
      store.deleteImage(user.imageId);
      user.imageId = null;
      user.updatedAt = Date.now();
      store.changed();
    }
    return userJSON(store, user, "bapi");
  });

  // One of the user's registered passkeys (`users.deleteUserPasskey`): it no longer signs them in.
  route("DELETE", "/v1/users/:id/passkeys/:passkeyId", (req) => {
    const user = userOf(req);
    const passkey = passkeysOf(store, user.id).find((p) => p.id === req.params.passkeyId);
    if (!passkey) throw new ApiError(404, "resource_not_found", "Passkey not found");
    store.state.passkeys = store.state.passkeys.filter((p) => p !== passkey);
    user.updatedAt = Date.now();
    store.changed();
    return deletedJSON("passkey", passkey.id);
  });

  // Unlike PATCH (a deep merge), each metadata field given replaces the old one whole; the others stay.
  route("PUT", "/v1/users/:id/metadata", (req) => {
    const user = userOf(req);
    const body = (req.body ?? {}) as Record<string, unknown>;
    const replaced = (["public", "private", "unsafe"] as const).flatMap((kind) => {
      const value = body[`${kind}_metadata`];
      return value === undefined ? [] : [[kind, parseMetadata(value, `${kind}_metadata`)] as const];
    });
    for (const [kind, value] of replaced) user[`${kind}Metadata`] = value;
    user.updatedAt = Date.now();
    store.changed();
    return userJSON(store, user, "bapi");
  });
}
