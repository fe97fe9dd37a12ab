import { createSignInToken, revokeSignInToken, ticketUrl } from "../domain/invitations";
import { backendSessionJSON, signInTokenJSON } from "../json";
import { ApiError } from "../domain/errors";
import { endSession } from "../domain/sessions";
import { sessionStatus } from "../domain/session-tasks";
import { createTestingToken } from "../domain/testing-tokens";
import { clampInt, str } from "../http/routing";
import type { BackendContext, Route } from "./context";
import { filterList, listParams, pagedAnswer, type ListSpec } from "./lists";
import type { SessionRecord } from "../state/store";

/** `GET /v1/sessions`. */
const SESSION_LIST: ListSpec<SessionRecord> = {
  filters: {
    client_id: (values) => (s) => values.includes(s.clientId),
    user_id: (values) => (s) => values.includes(s.userId),
    // As the answer shows it: a session with a task is `pending`, not `active`.
    status: (values, store) => (s) => values.includes(sessionStatus(store, s)),
  },
  options: ["paginated", "limit", "offset"],
};

/** Sessions, handshakes, and the endpoints Clerk's test helpers (@clerk/testing) call. */
export function registerSessionRoutes(route: Route, { store, frontendApiUrl }: BackendContext): void {
  route("POST", "/v1/testing_tokens", { body: {} }, () => {
    const { token, expiresAt } = createTestingToken(store);
    return { object: "testing_token", token, expires_at: expiresAt };
  });
  route(
    "POST",
    "/v1/sign_in_tokens",
    {
      body: {
        user_id: "kept",
        expires_in_seconds: "kept",
        org_id: { refused: "The emulator's sign-in tokens do not choose an active organization." },
      },
    },
    (req) => {
      const userId = str(req.body?.user_id) ?? "";
      if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
      const seconds = clampInt(req.body?.expires_in_seconds, 30 * 86_400, 1, 315_360_000);
      const record = createSignInToken(store, userId, seconds);
      return signInTokenJSON(record, ticketUrl(frontendApiUrl(req), record.ticket));
    },
  );
  route("POST", "/v1/sign_in_tokens/:id/revoke", { body: {} }, (req) => {
    const record = revokeSignInToken(store, String(req.params.id));
    return signInTokenJSON(record, ticketUrl(frontendApiUrl(req), record.ticket));
  });

  // Sessions and clients -----------------------------------------------------
  // Clerk wants a user or a client to list sessions of; the answer is a bare array.
  route("GET", "/v1/sessions", { query: listParams(SESSION_LIST) }, (req) => {
    const userId = str(req.query.user_id);
    const clientId = str(req.query.client_id);
    if (!userId && !clientId) {
      throw new ApiError(422, "form_param_missing", "Either user_id or client_id is required.", "user_id");
    }
    const list = filterList(SESSION_LIST, req, store, store.state.sessions).sort((a, b) => b.createdAt - a.createdAt);
    return pagedAnswer(req, list, (s) => backendSessionJSON(store, s));
  });
  route("GET", "/v1/sessions/:id", { query: [] }, (req) => {
    const session = store.session(String(req.params.id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    return backendSessionJSON(store, session);
  });
  route("POST", "/v1/sessions/:id/revoke", { body: {} }, (req) => {
    const session = store.session(String(req.params.id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    endSession(store, session, "revoked");
    return backendSessionJSON(store, session);
  });
  route(
    "GET",
    "/v1/clients/handshake_payload",
    {
      // Not in Clerk's description (contract/allowlist.ts); @clerk/backend sends the nonce.
      query: ["nonce"],
    },
    (req) => {
      const nonce = str(req.query.nonce);
      const found = store.state.handshakes.find((h) => h.nonce === nonce && h.expiresAt > Date.now());
      // Readable until it expires: the root and the route loaders of one request each resolve it.
      if (!found) throw new ApiError(404, "resource_not_found", "Handshake not found");
      return { directives: found.directives };
    },
  );
}
