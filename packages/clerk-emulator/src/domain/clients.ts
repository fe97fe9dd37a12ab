import { ApiError } from "./errors";
import { beginInAnOrganization } from "./session-tasks";
import type { ClientRecord, Metadata, SessionActivity, SessionRecord, SignUpRecord, Store } from "../state/store";

/**
 * Browsers' clients as the Backend API reaches them: the sign-up under way on
 * one, and a session made for a user on a client of its own.
 */

/** The sign-up with this id, on whichever client holds it, or Clerk's 404. */
export function signUpOnClient(store: Store, id: string): SignUpRecord {
  const found = store.state.clients.find((c) => c.signUp?.id === id)?.signUp;
  if (!found) throw new ApiError(404, "resource_not_found", "Sign-up not found");
  return found;
}

/** `PATCH /v1/sign_ups/:id`: the fields given; the listeners are told even when none is. */
export function changeSignUp(
  store: Store,
  signUp: SignUpRecord,
  changes: Pick<SignUpRecord, "externalId" | "customAction">,
): SignUpRecord {
  return store.write(() => Object.assign(signUp, changes));
}

/** A browser's first call: a client of its own, with no session yet. */
export function newClient(store: Store): ClientRecord {
  return store.write(() => store.createClient());
}

/**
 * A session for a user without signing in (`POST /v1/sessions`, Clerk's
 * testing helper), on a new client of its own as a sign-in on a new device
 * would make it, in the organization given if the user is a member of it.
 */
export function startSessionOnNewClient(
  store: Store,
  input: {
    userId: string;
    activeOrganizationId: string | null;
    lifetimeMs: number;
    /** The device, as the devices list shows it. */
    activity?: SessionActivity;
    /** An impersonation, as an actor token's sign-in makes one. */
    actor?: Metadata;
  },
): SessionRecord {
  const { userId, activeOrganizationId: orgId } = input;
  if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
  if (orgId && !store.membership(orgId, userId)) {
    throw new ApiError(404, "resource_not_found", "Organization not found", "active_organization_id");
  }
  return store.write(() => {
    const session = store.createSession(store.createClient(), userId, input.lifetimeMs, input.activity);
    if (input.actor) session.actor = input.actor;
    if (orgId) session.lastActiveOrganizationId = orgId;
    beginInAnOrganization(store, session);
    return session;
  });
}
