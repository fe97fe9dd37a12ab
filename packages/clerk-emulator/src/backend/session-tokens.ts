import { createPublicKey, verify } from "node:crypto";
import { backendSessionJSON } from "../json";
import { startSessionOnNewClient } from "../domain/clients";
import { integerIn, jwtTemplateNamed, mintTemplateToken } from "../domain/jwt-templates";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import { mintSessionToken } from "../domain/session-tokens";
import type { TokenSettings } from "../domain/tokens";
import type { SessionRecord } from "../state/store";
import type { BackendContext, Route } from "./context";

/** `expires_in_seconds` as Clerk bounds it: 30 seconds to ten years; absent, undefined (the token's usual lifetime). */
function lifetimeOf(body: unknown): number | undefined {
  const value = (body as { expires_in_seconds?: unknown } | undefined)?.expires_in_seconds;
  return value === undefined || value === null ? undefined : integerIn(value, "expires_in_seconds", 30, 315_360_000, 0);
}

/** Whether a JWT was signed with the instance's key (its time is not checked: a refresh brings an expired one). */
function signedByInstance(jwt: string, { key }: Pick<TokenSettings, "key">): Record<string, unknown> | null {
  const [header, payload, signature] = jwt.split(".");
  if (!header || !payload || !signature) return null;
  const ok = verify(
    "RSA-SHA256",
    Buffer.from(`${header}.${payload}`),
    createPublicKey(key.privateKey),
    Buffer.from(signature, "base64url"),
  );
  if (!ok) return null;
  try {
    return JSON.parse(Buffer.from(payload, "base64url").toString()) as Record<string, unknown>;
  } catch {
    return null;
  }
}

/**
 * Sessions made and tokens minted by the Backend API: a session for a user
 * without signing in (`POST /v1/sessions`, Clerk's testing helper), a
 * session's token or a JWT template's (`sessions.getToken`), and the refresh
 * @clerk/backend asks for when a session token has expired.
 */
export function registerSessionTokenRoutes(route: Route, { store }: BackendContext, tokens: TokenSettings): void {
  const activeSession = (id: unknown): SessionRecord => {
    const session = store.session(String(id));
    if (!session) throw new ApiError(404, "resource_not_found", "Session not found");
    if (session.status !== "active" || session.expireAt <= Date.now()) {
      throw new ApiError(404, "resource_not_found", "Session not found", undefined, "The session is not active.");
    }
    return session;
  };

  route("POST", "/v1/sessions", { body: { user_id: "kept", active_organization_id: "kept" } }, (req) => {
    const userId = str(req.body?.user_id) ?? "";
    if (!userId) throw new ApiError(422, "form_param_missing", "user_id is required.", "user_id");
    // A session of its own client, as a sign-in on a new device would make (session.created is sent).
    const session = startSessionOnNewClient(store, {
      userId,
      activeOrganizationId: str(req.body?.active_organization_id),
      lifetimeMs: tokens.sessionLifetimeMs,
    });
    return backendSessionJSON(store, session);
  });

  route("POST", "/v1/sessions/:id/tokens", { body: { expires_in_seconds: "kept" } }, (req) => {
    const lifetime = lifetimeOf(req.body);
    const session = activeSession(req.params.id);
    return { object: "token", jwt: mintSessionToken(store, tokens, session, { ttlSeconds: lifetime }) };
  });

  route("POST", "/v1/sessions/:id/tokens/:template", { body: { expires_in_seconds: "kept" } }, (req) => {
    const lifetime = lifetimeOf(req.body);
    const session = activeSession(req.params.id);
    const template = jwtTemplateNamed(store, String(req.params.template));
    const jwt = mintTemplateToken(store, tokens, { template, session, lifetime });
    return { object: "token", jwt };
  });

  // A 401 for anything wrong tells @clerk/backend to fall back to the handshake, as Clerk's description says.
  route(
    "POST",
    "/v1/sessions/:id/refresh",
    {
      body: {
        expired_token: "kept",
        // Required, but the emulator issues no `__refresh` cookie to compare it with (GUIDE.md).
        refresh_token: "kept",
        request_origin: "kept",
        format: "kept",
        // The emulator has no bot or device checks to run on them.
        request_headers: "flag",
        request_originating_ip: "flag",
      },
    },
    (req) => {
      const refuse = (why: string) =>
        new ApiError(401, "authentication_invalid", "Unable to refresh the session", undefined, why);
      const expired = str(req.body?.expired_token) ?? "";
      if (!str(req.body?.refresh_token)) throw refuse("refresh_token is required.");
      if (!str(req.body?.request_origin)) throw refuse("request_origin is required.");
      const claims = signedByInstance(expired, tokens);
      if (!claims || claims.sid !== req.params.id)
        throw refuse("expired_token is not a session token of this session.");
      const session = store.session(String(req.params.id));
      if (!session || session.status !== "active" || session.expireAt <= Date.now())
        throw refuse("The session is not active.");
      const jwt = mintSessionToken(store, tokens, session, { azp: str(req.body?.request_origin) ?? undefined });
      if (str(req.body?.format) === "cookie") {
        const secure = str(req.body?.request_origin)?.startsWith("https:") ? "; Secure" : "";
        return { object: "cookies", cookies: [`__session=${jwt}; Path=/; SameSite=Lax${secure}`] };
      }
      return { object: "token", jwt };
    },
  );
}
