import { randomBytes } from "node:crypto";
import { newId } from "../state/ids";
import { renderClaims } from "./jwt-shortcodes";
import { ApiError } from "./errors";
import type { DeepReadonly, JwtTemplateRecord, Metadata, SessionRecord, Store } from "../state/store";
import { CUSTOM_KEY_ALGORITHMS, signJwt, type TokenSettings } from "./tokens";

/** Clerk's defaults for a template's token: a minute's lifetime, five seconds' clock skew. */
const DEFAULT_LIFETIME = 60;
const DEFAULT_CLOCK_SKEW = 5;

/**
 * The JOSE header's `cat` Clerk stamps on a JWT template's token, so that
 * @clerk/backend refuses it where a session token is expected (it has no `sid`
 * and outlives the session): `JWT_CATEGORY_JWT_TEMPLATE` in clerk/javascript's
 * packages/backend/src/tokens/jwtCategories.ts.
 */
export const JWT_TEMPLATE_CATEGORY = "cl_B7d4PD222AAA";

export function jwtTemplates(store: Store): DeepReadonly<JwtTemplateRecord[]> {
  return store.state.jwtTemplates;
}

export function jwtTemplate(store: Store, id: string): JwtTemplateRecord {
  const found = store.find("jwtTemplates", (t) => t.id === id);
  if (!found) throw new ApiError(404, "resource_not_found", "JWT template not found");
  return found;
}

/** The template a token is asked for by name (`getToken({ template })`), or Clerk's 404. */
export function jwtTemplateNamed(store: Store, name: string): JwtTemplateRecord {
  const found = store.find("jwtTemplates", (t) => t.name === name);
  if (!found) throw new ApiError(404, "resource_not_found", `No JWT template exists with name: ${name}`);
  return found;
}

const invalid = (param: string, message: string) => new ApiError(422, "form_param_value_invalid", message, param);

export function integerIn(value: unknown, param: string, min: number, max: number, fallback: number): number {
  if (value === undefined || value === null) return fallback;
  const n = typeof value === "string" && /^-?\d+$/.test(value) ? Number(value) : value;
  if (typeof n !== "number" || !Number.isInteger(n) || n < min || n > max) {
    throw invalid(param, `${param} must be an integer between ${min} and ${max}.`);
  }
  return n;
}

/** A custom key, checked by signing with it once: a key that cannot sign is refused when it is given, not when a token is asked for. */
function customKeyOf(body: Record<string, unknown>, previous: JwtTemplateRecord["customKey"]) {
  const wanted = body.custom_signing_key;
  if (wanted === undefined) return previous;
  if (wanted !== true && wanted !== "true") return null;
  const algorithm = typeof body.signing_algorithm === "string" ? body.signing_algorithm : "";
  const key = typeof body.signing_key === "string" ? body.signing_key : "";
  if (!CUSTOM_KEY_ALGORITHMS[algorithm]) {
    throw invalid(
      "signing_algorithm",
      `signing_algorithm must be one of ${Object.keys(CUSTOM_KEY_ALGORITHMS).join(", ")}.`,
    );
  }
  if (!key) throw new ApiError(422, "form_param_missing", "signing_key is required.", "signing_key");
  try {
    signJwt({ algorithm, key }, {});
  } catch {
    throw invalid("signing_key", `signing_key is not a valid key for ${algorithm}.`);
  }
  return { algorithm, key };
}

/** Creates a template from a create's body, validated as Clerk validates it. */
export function createJwtTemplate(store: Store, body: Record<string, unknown>): JwtTemplateRecord {
  const template = templateFromBody(store, body, null);
  return store.write((state) => {
    state.jwtTemplates.push(template);
    return template;
  });
}

/** Changes a template by an update's body; a field the body leaves out keeps its value. */
export function updateJwtTemplate(store: Store, id: string, body: Record<string, unknown>): JwtTemplateRecord {
  const template = jwtTemplate(store, id);
  const changed = templateFromBody(store, body, template);
  return store.write(() => Object.assign(template, changed));
}

export function deleteJwtTemplate(store: Store, id: string): JwtTemplateRecord {
  const template = jwtTemplate(store, id);
  return store.write((state) => {
    state.jwtTemplates = state.jwtTemplates.filter((t) => t !== template);
    return template;
  });
}

/** A template from a create (`previous` null) or an update's body, validated as Clerk validates it. */
export function templateFromBody(
  store: Store,
  body: Record<string, unknown>,
  previous: JwtTemplateRecord | null,
): JwtTemplateRecord {
  const name = typeof body.name === "string" ? body.name.trim() : "";
  if (!name) throw new ApiError(422, "form_param_missing", "name is required.", "name");
  const claims = body.claims;
  if (typeof claims !== "object" || claims === null || Array.isArray(claims)) {
    throw new ApiError(422, "form_param_missing", "claims must be a JSON object.", "claims");
  }
  if (jwtTemplates(store).some((t) => t.name === name && t !== previous)) {
    throw new ApiError(422, "form_identifier_exists", "A JWT template with this name already exists.", "name");
  }
  const t = Date.now();
  return {
    id: previous?.id ?? newId("jtmp"),
    name,
    claims: claims as Metadata,
    lifetime: integerIn(body.lifetime, "lifetime", 30, 315_360_000, previous?.lifetime ?? DEFAULT_LIFETIME),
    allowedClockSkew: integerIn(
      body.allowed_clock_skew,
      "allowed_clock_skew",
      0,
      300,
      previous?.allowedClockSkew ?? DEFAULT_CLOCK_SKEW,
    ),
    customKey: customKeyOf(body, previous?.customKey ?? null),
    createdAt: previous?.createdAt ?? t,
    updatedAt: t,
  };
}

export function jwtTemplateJSON(template: JwtTemplateRecord) {
  return {
    object: "jwt_template",
    id: template.id,
    name: template.name,
    claims: template.claims,
    lifetime: template.lifetime,
    allowed_clock_skew: template.allowedClockSkew,
    custom_signing_key: template.customKey !== null,
    signing_algorithm: template.customKey?.algorithm ?? "RS256",
    created_at: template.createdAt,
    updated_at: template.updatedAt,
  };
}

/**
 * A token from a template for a session: the template's claims, shortcodes
 * resolved, under Clerk's default claims, which a template cannot override
 * (`azp` when the request had an Origin, `exp`, `iat`, `iss`, `jti`, `nbf`
 * `allowed_clock_skew` seconds back, `sub`). Signed with the instance's key
 * (RS256, its `kid`, the template `cat`) or the template's own key and
 * algorithm (no `kid`).
 */
export function mintTemplateToken(
  store: Store,
  { key, issuer }: Pick<TokenSettings, "key" | "issuer">,
  input: { template: JwtTemplateRecord; session: SessionRecord; azp?: string; lifetime?: number },
): string {
  const { template, session } = input;
  const iat = Math.floor(Date.now() / 1000);
  const rendered = renderClaims(store, session, template.claims);
  const claims = {
    ...rendered,
    azp: input.azp,
    exp: iat + (input.lifetime ?? template.lifetime),
    iat,
    iss: issuer,
    jti: randomBytes(10).toString("hex"),
    nbf: iat - template.allowedClockSkew,
    sub: session.userId,
  };
  // Clerk stamps its category only on what the instance's key signs.
  return template.customKey
    ? signJwt(template.customKey, claims)
    : signJwt(key, claims, { cat: JWT_TEMPLATE_CATEGORY });
}
