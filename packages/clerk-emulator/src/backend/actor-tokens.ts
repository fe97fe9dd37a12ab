import {
  ACTOR_SESSION_SECONDS,
  ACTOR_TOKEN_TTL_SECONDS,
  actorTokenJSON,
  createActorToken,
  revokeActorToken,
} from "../domain/actor-tokens";
import { integerIn } from "../domain/jwt-templates";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { Metadata } from "../state/store";
import type { BackendContext, Route } from "./context";

/** Impersonation: a link that signs someone in as a user, with an `act` claim naming them in every token. */
export function registerActorTokenRoutes(route: Route, { store, frontendApiUrl }: BackendContext): void {
  route(
    "POST",
    "/v1/actor_tokens",
    {
      body: {
        user_id: "kept",
        actor: "kept",
        expires_in_seconds: "kept",
        session_max_duration_in_seconds: "kept",
      },
    },
    (req) => {
      const userId = str(req.body?.user_id) ?? "";
      if (!userId) throw new ApiError(422, "form_param_missing", "user_id is required.", "user_id");
      if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
      const actor: unknown = req.body?.actor;
      if (typeof actor !== "object" || actor === null || Array.isArray(actor)) {
        throw new ApiError(422, "form_param_missing", "actor is required.", "actor");
      }
      if (!str((actor as Metadata).sub)) {
        throw new ApiError(422, "form_param_missing", "actor must include sub, the ID of the actor.", "actor");
      }
      const record = createActorToken(store, {
        userId,
        actor: actor as Metadata,
        expiresInSeconds: integerIn(
          req.body?.expires_in_seconds,
          "expires_in_seconds",
          1,
          315_360_000,
          ACTOR_TOKEN_TTL_SECONDS,
        ),
        sessionMaxDurationSeconds: integerIn(
          req.body?.session_max_duration_in_seconds,
          "session_max_duration_in_seconds",
          1,
          315_360_000,
          ACTOR_SESSION_SECONDS,
        ),
      });
      return actorTokenJSON(record, frontendApiUrl(req));
    },
  );
  route("POST", "/v1/actor_tokens/:id/revoke", { body: {} }, (req) =>
    actorTokenJSON(revokeActorToken(store, String(req.params.id)), frontendApiUrl(req)),
  );
}
