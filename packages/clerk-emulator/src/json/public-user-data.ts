import type { Store, UserRecord } from "../state/store";
import { userImageUrl } from "../domain/public-profile";

/** The public face of a user, as memberships and sessions show it in the browser. */
export function publicUserDataJSON(store: Store, user: UserRecord) {
  const image = userImageUrl(store, user);
  return {
    user_id: user.id,
    first_name: user.firstName,
    last_name: user.lastName,
    image_url: image,
    profile_image_url: image,
    has_image: Boolean(user.imageId),
    identifier: user.email,
    username: user.username,
  };
}
