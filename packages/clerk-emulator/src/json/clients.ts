import type { ClientRecord, Store } from "../state/store";
import { backendSessionJSON } from "./sessions";

/** A browser's client as the Backend API shows it: its sessions (all of them, ended ones too), its sign-in and sign-up. */
export function backendClientJSON(store: Store, client: ClientRecord) {
  store.activeSessions(client); // expires any session whose time has passed, so its status is right
  const sessions = client.sessionIds.flatMap((id) => {
    const session = store.session(id);
    return session ? [session] : [];
  });
  return {
    object: "client",
    id: client.id,
    session_ids: sessions.map((s) => s.id),
    sessions: sessions.map((s) => backendSessionJSON(store, s)),
    sign_in_id: client.signIn?.id ?? null,
    sign_up_id: client.signUp?.id ?? null,
    last_active_session_id: client.lastActiveSessionId,
    last_authentication_strategy: client.lastAuthenticationStrategy ?? null,
    updated_at: client.updatedAt,
    created_at: client.createdAt,
  };
}
