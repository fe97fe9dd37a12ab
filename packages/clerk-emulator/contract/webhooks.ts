import { Ajv, type ValidateFunction } from "ajv";
import { readClerkSpec } from "./clerk-specs";
import { toJsonSchema } from "./openapi";

/**
 * Clerk's own description of its webhooks' bodies (clerk/openapi-specs,
 * webhooks/2025-04-15.yml; MIT, see contract/clerk-openapi/README.md):
 * each event type's request body, envelope and `data`, checked with Ajv as
 * contract/openapi.ts checks the APIs' answers.
 */
const SPEC = "webhooks-2025-04-15.yml";
const SPEC_ID = "webhooks";

type Json = Record<string, unknown>;

/**
 * Where Clerk's spec cannot be met by any body, corrected with the evidence.
 *
 * `SessionEventPayload` is `allOf: [Session, {properties: {user}}]`, but
 * `Session` is closed (`additionalProperties: false`), so the `user` the
 * second part requires is refused by the first: no session event could pass.
 * Clerk's own examples of every `session.*` event (`SessionCreatedEventPayloadExample`…)
 * have the session's fields and `user` side by side. Corrected: one closed
 * schema, Session's properties plus `user`.
 */
function correct(doc: Json): void {
  const schemas = (doc.components as { schemas: Record<string, Json> }).schemas;
  const session = schemas.Session!;
  const payload = schemas.SessionEventPayload!;
  const extra = ((payload.allOf as Json[])[1] as { properties: Json; required: string[] }) ?? null;
  if (!extra?.properties?.user)
    throw new Error("webhook contract: SessionEventPayload changed shape; review the correction");
  schemas.SessionEventPayload = {
    ...session,
    properties: { ...(session.properties as Json), ...extra.properties },
    required: [...(session.required as string[]), ...extra.required],
  };
}

let validators: Map<string, ValidateFunction> | undefined;

function load(): Map<string, ValidateFunction> {
  if (validators) return validators;
  const doc = readClerkSpec(SPEC);
  correct(doc);
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
  ajv.addSchema({ components: toJsonSchema(doc.components, SPEC_ID) }, SPEC_ID);
  validators = new Map();
  const hooks = doc["x-webhooks"] as Record<string, { post: { requestBody: { content: Record<string, Json> } } }>;
  for (const [type, hook] of Object.entries(hooks)) {
    const schema = hook.post.requestBody.content["application/json"]?.schema;
    if (schema) validators.set(type, ajv.compile(toJsonSchema(schema, SPEC_ID) as Json));
  }
  return validators;
}

/**
 * What is wrong with a webhook's whole body (envelope and `data`) by Clerk's
 * spec for its `type`, one line per problem; empty when it keeps it.
 */
export function webhookBreaches(body: { type: string } & Json): string[] {
  const { type } = body;
  const validate = load().get(type);
  if (!validate) return [`Clerk's webhooks spec has no ${type}`];
  if (validate(body)) return [];
  return (validate.errors ?? [])
    .filter((e) => e.keyword !== "anyOf" && !(e.keyword === "type" && e.params.type === "null"))
    .map((e) => `${type} ${e.instancePath || "(root)"} ${e.message ?? e.keyword} ${JSON.stringify(e.params)}`);
}
