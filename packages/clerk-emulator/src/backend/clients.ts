import { backendClientJSON, signUpJSON } from "../json";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { ClientRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { pagedAnswer } from "./query-params";

/** Browsers' clients and the sign-ups on them, as the Backend API reads them. */
export function registerClientRoutes(route: Route, { store }: BackendContext): void {
  const clientOr404 = (client: ClientRecord | null) => {
    if (!client) throw new ApiError(404, "resource_not_found", "Client not found");
    return client;
  };

  // Deprecated by Clerk, still answered: newest first.
  route("GET", "/v1/clients", (req) =>
    pagedAnswer(
      req,
      [...store.state.clients].sort((a, b) => b.createdAt - a.createdAt),
      (c) => backendClientJSON(store, c),
    ),
  );
  route("GET", "/v1/clients/:id", (req) => backendClientJSON(store, clientOr404(store.client(String(req.params.id)))));
  // The token is what the browser's `__client` cookie holds: on the emulator, the client's id.
  route("POST", "/v1/clients/verify", (req) => {
    const token = str(req.body?.token);
    if (!token) throw new ApiError(422, "form_param_missing", "token is required.", "token");
    return backendClientJSON(store, clientOr404(store.client(token)));
  });

  const signUpOr404 = (id: string) => {
    const found = store.state.clients.find((c) => c.signUp?.id === id)?.signUp;
    if (!found) throw new ApiError(404, "resource_not_found", "Sign-up not found");
    return found;
  };
  route("GET", "/v1/sign_ups/:id", (req) => signUpJSON(signUpOr404(String(req.params.id)), store));
  route("PATCH", "/v1/sign_ups/:id", (req) => {
    const signUp = signUpOr404(String(req.params.id));
    const body = (req.body ?? {}) as Record<string, unknown>;
    if ("external_id" in body) {
      const value = body.external_id;
      if (value !== null && typeof value !== "string") {
        throw new ApiError(422, "form_param_format_invalid", "external_id must be a string.", "external_id");
      }
      signUp.externalId = value || null;
    }
    if ("custom_action" in body && body.custom_action !== null) {
      signUp.customAction = body.custom_action === true || body.custom_action === "true";
    }
    store.changed();
    return signUpJSON(signUp, store);
  });
}
