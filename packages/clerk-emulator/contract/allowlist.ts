/**
 * Where Clerk's published OpenAPI spec (tests/contract/clerk-openapi) is wrong
 * about what Clerk really sends, and only there: each entry corrects one schema
 * of the spec before the emulator's answers are checked against it, says why,
 * and cites the clerk-js or @clerk/backend source that reads the real shape.
 * Nothing else is excused: an answer that does not fit is the emulator's bug.
 */

type Schema = Record<string, unknown>;

export type Excuse = {
  api: "fapi" | "bapi";
  /** JSON pointer to the schema in the spec, e.g. "#/components/schemas/Client.Organization". */
  schema: string;
  /** What Clerk really sends, and how the spec says otherwise. */
  reason: string;
  /** Where clerk-js or @clerk/backend reads the real shape (package, file, line or symbol). */
  evidence: string;
  /** Changes the spec's schema in place to what Clerk sends. */
  correct(schema: Schema): void;
};

/**
 * A list @clerk/backend asks for with `paginated=true`: Clerk answers `{ data, total_count }`,
 * where the spec has only the bare array (which it still answers without the parameter).
 */
function paginatedList(schema: string, what: string): Excuse {
  return {
    api: "bapi",
    schema,
    reason:
      `With paginated=true, Clerk answers GET ${what} with { data: [...], total_count }; the spec gives only ` +
      "the bare array it answers without the parameter.",
    evidence:
      "@clerk/backend 2.33 and 3: SessionAPI.getSessionList, JwtTemplatesApi.list and ClientAPI.getClientList " +
      "send queryParams { ...params, paginated: true } and return PaginatedResourceResponse (deserialize() in " +
      "src/api/request.ts reads payload.data and payload.total_count); clerk/clerk-sdk-go v2 jwttemplate.List " +
      'requests "/jwt_templates?paginated=true" into JWTTemplateList { data, total_count } (jwt_template.go), ' +
      "and client.List likewise into ClientList.",
    correct(content) {
      const media = content as { schema: Record<string, unknown> };
      const array = media.schema as { items: unknown };
      media.schema = {
        anyOf: [
          array,
          {
            type: "object",
            additionalProperties: false,
            required: ["data", "total_count"],
            properties: { data: { type: "array", items: array.items }, total_count: { type: "integer" } },
          },
        ],
      };
    },
  };
}

export const allowlist: Excuse[] = [
  paginatedList("#/components/responses/Session.List/content/application~1json", "/sessions"),
  paginatedList("#/components/responses/JWTTemplate.List/content/application~1json", "/jwt_templates"),
  paginatedList("#/components/responses/Client.List/content/application~1json", "/clients"),
  {
    api: "fapi",
    schema: "#/components/schemas/UserSettings.Socials",
    reason:
      "An instance's custom OAuth providers are listed under their own strategy, `oauth_custom_<key>`, beside " +
      "Clerk's built-in ones; the published spec's list of keys is closed (additionalProperties: false) and " +
      "names one custom provider only, its example `oauth_custom_mock`.",
    evidence:
      "@clerk/shared 4 (Core 3): CustomOAuthStrategy is `oauth_custom_${string}` (src/types/strategies.ts) and " +
      "OAuthStrategy includes it; clerk-js's UserSettings reads every key of user_settings.social " +
      "(socialProviderStrategies, authenticatableSocialStrategies) and @clerk/ui draws a custom provider's " +
      "button from its name and logo_url.",
    correct(socials) {
      socials.patternProperties = {
        "^oauth_custom_[a-z0-9_]+$": { $ref: "#/components/schemas/UserSettings.Social" },
      };
    },
  },
  {
    api: "bapi",
    schema: "#/paths",
    reason:
      "Clerk's Backend API answers GET /clients/handshake_payload?nonce=… with { directives: string[] } (the " +
      "cookies a nonce-based handshake sets), but the published spec does not list the path.",
    evidence:
      "@clerk/backend 2.33: ClientAPI.getHandshakePayload() sends GET /clients/handshake_payload " +
      "(src/api/endpoints/ClientApi.ts) and reads HandshakePayloadJSON { directives: string[] } " +
      "(src/api/resources/HandshakePayload.ts); authenticateRequest calls it for a handshake nonce.",
    correct(paths) {
      paths["/clients/handshake_payload"] = {
        get: {
          responses: {
            "200": {
              content: {
                "application/json": {
                  schema: {
                    type: "object",
                    additionalProperties: false,
                    required: ["directives"],
                    properties: { directives: { type: "array", items: { type: "string" } } },
                  },
                },
              },
            },
            "404": { $ref: "#/components/responses/ResourceNotFound" },
          },
        },
      };
    },
  },
  {
    api: "bapi",
    schema: "#/components/responses/AllowlistIdentifier.List",
    reason:
      "GET /allowlist_identifiers?paginated=true answers { data, total_count }, as the spec's own Paginated " +
      'parameter says ("If true, the results will be paginated"); the spec gives the list only as an array.',
    evidence:
      "@clerk/backend 2.33 and 3: AllowlistIdentifierAPI.getAllowlistIdentifierList() always sends paginated: true " +
      "and is typed PaginatedResourceResponse<AllowlistIdentifier[]> (src/api/endpoints/AllowlistIdentifierApi.ts); " +
      "deserialize() reads its data and total_count (src/api/resources/Deserializer.ts), so an array leaves it " +
      "without them.",
    correct(response) {
      const content = response.content as Record<string, { schema: Schema }>;
      const list = content["application/json"]!.schema;
      content["application/json"]!.schema = {
        anyOf: [
          list,
          {
            type: "object",
            additionalProperties: false,
            required: ["data", "total_count"],
            properties: { data: list, total_count: { type: "integer" } },
          },
        ],
      };
    },
  },
  {
    api: "fapi",
    schema: "#/components/schemas/UserSettings.SignUp/properties",
    reason:
      "Clerk's environment says whether the instance requires multi-factor authentication in " +
      "user_settings.sign_up.mfa ({ required: boolean }), which the published spec's UserSettings.SignUp " +
      "(additionalProperties: false) does not list.",
    evidence:
      "clerk-js 6 (Core 3): UserSettings keeps signUp.mfa.required (src/core/resources/UserSettings.ts), " +
      "typed in @clerk/shared's SignUpData (src/types/userSettings.ts: mfa?: { required: boolean }).",
    correct(properties) {
      properties.mfa = {
        type: "object",
        additionalProperties: false,
        required: ["required"],
        properties: { required: { type: "boolean" } },
      };
    },
  },
  {
    api: "fapi",
    schema: "#/components/schemas/Client.OrganizationSettings/properties",
    reason:
      "Clerk's environment says whether the instance forces an organization (personal accounts off) in " +
      "organization_settings.force_organization_selection, a boolean the published spec's " +
      "Client.OrganizationSettings (additionalProperties: false) does not list.",
    evidence:
      "clerk-js 6 (Core 3): OrganizationSettings.fromJSON reads data.force_organization_selection into " +
      "forceOrganizationSelection (src/core/resources/OrganizationSettings.ts), typed in @clerk/shared's " +
      "OrganizationSettingsJSON (src/types/organizationSettings.ts); @clerk/ui's usePreloadTasks and " +
      "OrganizationSwitcher read it.",
    correct(properties) {
      properties.force_organization_selection = { type: "boolean" };
    },
  },
  {
    api: "fapi",
    schema: "#/components/schemas/Client.SessionBase/properties/status",
    reason:
      "A session with a task (Core 3's session tasks) is `pending` in every client Clerk sends, but the " +
      "published spec has two session schemas: Client.SessionBase-2 (the client of sign-ins, touch and the " +
      "session endpoints) lists `pending`, and Client.SessionBase (the client beside a user, as /v1/me/* " +
      "answer it: change_password during the reset-password task) does not.",
    evidence:
      "@clerk/shared 4 (Core 3): SessionStatus in src/types/session.ts includes 'pending', and " +
      "SessionResource.tasks the 'reset-password' task; @clerk/ui's TaskResetPassword calls " +
      "user.updatePassword (POST /v1/me/change_password) while the session is pending, and clerk-js's " +
      "Session.fromJSON reads the status of every client's sessions alike.",
    correct(status) {
      (status.enum as string[]).push("pending");
    },
  },
  {
    api: "bapi",
    schema: "#/paths",
    reason:
      "@clerk/backend's betaFeatures.changeDomain() sends POST /beta_features/change_domain, which the published " +
      "spec does not list; it lists the same operation (home_url, is_secondary; 202 with no body) as " +
      "POST /instance/change_domain. The older path is that operation under its first name.",
    evidence:
      "@clerk/backend 2.33 and 3.25: BetaFeaturesAPI.changeDomain() requests POST joinPaths('/beta_features', " +
      "'change_domain') with { homeUrl, isSecondary } (src/api/endpoints/BetaFeaturesApi.ts).",
    correct(paths) {
      const documented = (paths["/instance/change_domain"] as { post?: unknown } | undefined)?.post;
      if (!documented) throw new Error("allowlist: POST /instance/change_domain is gone from Clerk's spec");
      paths["/beta_features/change_domain"] = { post: documented };
    },
  },
];
