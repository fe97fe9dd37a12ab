import { backendClientJSON, signUpJSON } from "../json";
import { changeSignUp, signUpOnClient } from "../domain/clients";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { ClientRecord, SignUpRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { pagedAnswer } from "./lists";

/** Browsers' clients and the sign-ups on them, as the Backend API reads them. */
export function registerClientRoutes(route: Route, { store }: BackendContext): void {
  const clientOr404 = (client: ClientRecord | null) => {
    if (!client) throw new ApiError(404, "resource_not_found", "Client not found");
    return client;
  };

  // Deprecated by Clerk, still answered: newest first.
  route("GET", "/v1/clients", { query: ["paginated", "limit", "offset"] }, (req) =>
    pagedAnswer(
      req,
      [...store.all("clients")].sort((a, b) => b.createdAt - a.createdAt),
      (c) => backendClientJSON(store, c),
    ),
  );
  route("GET", "/v1/clients/:id", { query: [] }, (req) =>
    backendClientJSON(store, clientOr404(store.client(String(req.params.id)))),
  );
  // The token is what the browser's `__client` cookie holds: on the emulator, the client's id.
  route("POST", "/v1/clients/verify", { body: { token: "kept" } }, (req) => {
    const token = str(req.body?.token);
    if (!token) throw new ApiError(422, "form_param_missing", "token is required.", "token");
    return backendClientJSON(store, clientOr404(store.client(token)));
  });

  route("GET", "/v1/sign_ups/:id", { query: [] }, (req) =>
    signUpJSON(signUpOnClient(store, String(req.params.id)), store),
  );
  route("PATCH", "/v1/sign_ups/:id", { body: { external_id: "kept", custom_action: "kept" } }, (req) => {
    const signUp = signUpOnClient(store, String(req.params.id));
    const body = (req.body ?? {}) as Record<string, unknown>;
    const changes: Pick<SignUpRecord, "externalId" | "customAction"> = {};
    if ("external_id" in body) {
      const value = body.external_id;
      if (value !== null && typeof value !== "string") {
        throw new ApiError(422, "form_param_format_invalid", "external_id must be a string.", "external_id");
      }
      changes.externalId = value || null;
    }
    if ("custom_action" in body && body.custom_action !== null) {
      changes.customAction = body.custom_action === true || body.custom_action === "true";
    }
    return signUpJSON(changeSignUp(store, signUp, changes), store);
  });
}
