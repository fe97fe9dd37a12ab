import { lastAdminError, soleAdminOf } from "./memberships";
import type { Store, UserRecord } from "../state/store";

/**
 * Deletes a person's account, theirs or by the Backend API: refused while
 * they are the last admin of an organization that has other members (it
 * would be left with nobody to manage it), as Clerk refuses it.
 */
export function removeAccount(store: Store, user: UserRecord): void {
  if (soleAdminOf(store, user.id).some((orgId) => store.membershipsOfOrg(orgId).length > 1)) throw lastAdminError();
  store.write(() => store.deleteUser(user));
}
