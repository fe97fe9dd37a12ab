/**
 * The instance's social connections (Clerk's dashboard: "SSO connections"), as Clerk's environment
 * JSON has them under `user_settings.social`: one entry per provider, keyed by its strategy
 * (`oauth_google`), each `enabled` and `authenticatable` (offered to sign in and sign up) or not.
 * clerk-js's `<SignIn/>` and `<SignUp/>` show a button for each enabled one (its
 * `socialProviderStrategies`, `authenticatableSocialStrategies`).
 *
 * A sign-in or sign-up with such a strategy goes as far as Clerk's answer that sends the browser to
 * the provider: an `unverified` OAuth verification whose `external_verification_redirect_url` is the
 * provider's authorize URL with Clerk's parameters. The emulator has no provider to come back from.
 *
 * Besides Clerk's built-in providers, an instance's own ("custom OAuth provider" in Clerk's dashboard,
 * strategy `oauth_custom_<key>`): the settings file gives its `name` and its `authorize_url` (the
 * dashboard's "Authorization URL"; its `scope` too, else `openid email profile`). The environment shows
 * it as Clerk's does, its name and logo, never its URL.
 */

/** A provider Clerk offers: its name as clerk-js names it, and where its consent screen is. */
type Provider = { name: string; authorizeUrl: string; scope: string };

/** The providers the emulator knows (a subset of Clerk's `UserSettings.Socials`), by strategy. */
export const SOCIAL_PROVIDERS: Readonly<Record<string, Provider>> = {
  oauth_apple: { name: "Apple", authorizeUrl: "https://appleid.apple.com/auth/authorize", scope: "email name" },
  oauth_discord: { name: "Discord", authorizeUrl: "https://discord.com/oauth2/authorize", scope: "identify email" },
  oauth_facebook: {
    name: "Facebook",
    authorizeUrl: "https://www.facebook.com/dialog/oauth",
    scope: "email public_profile",
  },
  oauth_github: {
    name: "GitHub",
    authorizeUrl: "https://github.com/login/oauth/authorize",
    scope: "user:email read:user",
  },
  oauth_gitlab: { name: "GitLab", authorizeUrl: "https://gitlab.com/oauth/authorize", scope: "read_user" },
  oauth_google: {
    name: "Google",
    authorizeUrl: "https://accounts.google.com/o/oauth2/auth",
    scope: "openid email profile",
  },
  oauth_linkedin_oidc: {
    name: "LinkedIn",
    authorizeUrl: "https://www.linkedin.com/oauth/v2/authorization",
    scope: "openid profile email",
  },
  oauth_microsoft: {
    name: "Microsoft",
    authorizeUrl: "https://login.microsoftonline.com/common/oauth2/v2.0/authorize",
    scope: "openid email profile",
  },
  oauth_slack: {
    name: "Slack",
    authorizeUrl: "https://slack.com/openid/connect/authorize",
    scope: "openid email profile",
  },
  oauth_twitch: { name: "Twitch", authorizeUrl: "https://id.twitch.tv/oauth2/authorize", scope: "user:read:email" },
  oauth_x: { name: "X / Twitter", authorizeUrl: "https://x.com/i/oauth2/authorize", scope: "users.read tweet.read" },
};

/** A custom provider's strategy: `oauth_custom_` and its key (lower case, digits and `_`). */
const CUSTOM_STRATEGY = /^oauth_custom_[a-z0-9_]+$/;

/** One provider's switches, as Clerk's `UserSettings.Social` has them (the strategy is its key). */
export type SocialConnection = {
  enabled: boolean;
  /** Offered to sign in and sign up with (else only to connect from the profile). */
  authenticatable: boolean;
  required: boolean;
  blockEmailSubaddresses: boolean;
  notSelectable: boolean;
  deprecated: boolean;
  name: string;
  logoUrl: string | null;
  /** A custom provider's own consent screen and scope (a built-in one's are in SOCIAL_PROVIDERS). */
  provider?: Provider;
};

export type SocialConnections = Readonly<Record<string, SocialConnection>>;

const SOCIAL_BOOLEANS = {
  enabled: "enabled",
  authenticatable: "authenticatable",
  required: "required",
  block_email_subaddresses: "blockEmailSubaddresses",
  not_selectable: "notSelectable",
  deprecated: "deprecated",
} as const;

/** What `user_settings.social` accepts, for the settings file's refusals. */
export const SOCIAL_ACCEPTS =
  `an object of providers by strategy (${Object.keys(SOCIAL_PROVIDERS).join(", ")}, or oauth_custom_<key> ` +
  `with its name and authorize_url), each {"enabled": true|false} and optionally ` +
  `${Object.keys(SOCIAL_BOOLEANS).slice(1).join(", ")} (true|false), strategy (its key), name, logo_url and ` +
  `a custom provider's scope (strings)`;

/** An http(s) URL, as a custom provider's authorize URL must be. */
const isHttpUrl = (v: unknown): v is string => {
  if (typeof v !== "string") return false;
  try {
    return ["http:", "https:"].includes(new URL(v).protocol);
  } catch {
    return false;
  }
};

/** The provider a strategy names: Clerk's built-in one, or the instance's custom one as its entry gives it. */
function providerOf(strategy: string, given: Record<string, unknown>): Provider | undefined {
  // Own keys only: a settings file's "constructor" or "__proto__" names no provider.
  if (!CUSTOM_STRATEGY.test(strategy))
    return Object.hasOwn(SOCIAL_PROVIDERS, strategy) ? SOCIAL_PROVIDERS[strategy] : undefined;
  const { name, authorize_url: authorizeUrl, scope = "openid email profile" } = given;
  if (typeof name !== "string" || !name || !isHttpUrl(authorizeUrl) || typeof scope !== "string") return;
  return { name, authorizeUrl, scope };
}

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value);

/** Clerk's logo address for a provider (clerk-js draws known providers' icons from the same place). */
const logoUrl = (strategy: string) => `https://img.clerk.com/static/${strategy.replace(/^oauth_/, "")}.png`;

/**
 * `user_settings.social` as the settings file writes it, in the environment's shape; undefined when
 * a provider is unknown or a field is not what Clerk's schema has (the whole value is then refused).
 * `enabled` is required; `authenticatable` is true unless given; name and logo are Clerk's unless given.
 */
export function readSocialConnections(value: unknown): SocialConnections | undefined {
  if (!isObject(value)) return;
  const connections: Record<string, SocialConnection> = {};
  for (const [strategy, given] of Object.entries(value)) {
    if (!isObject(given) || typeof given.enabled !== "boolean") return;
    const provider = providerOf(strategy, given);
    if (!provider) return;
    const custom = CUSTOM_STRATEGY.test(strategy);
    const connection: SocialConnection = {
      enabled: given.enabled,
      authenticatable: true,
      required: false,
      blockEmailSubaddresses: false,
      notSelectable: false,
      deprecated: false,
      name: provider.name,
      // Clerk draws a custom provider without a logo by its name's initial.
      logoUrl: custom ? null : logoUrl(strategy),
      ...(custom ? { provider } : {}),
    };
    for (const [field, v] of Object.entries(given)) {
      if (field in SOCIAL_BOOLEANS) {
        if (typeof v !== "boolean") return;
        connection[SOCIAL_BOOLEANS[field as keyof typeof SOCIAL_BOOLEANS]] = v;
      } else if (field === "strategy") {
        if (v !== strategy) return;
      } else if (field === "name") {
        if (typeof v !== "string") return;
        connection.name = v;
      } else if (field === "logo_url") {
        if (typeof v !== "string" && v !== null) return;
        connection.logoUrl = v;
      } else if (custom && (field === "authorize_url" || field === "scope")) {
        // Read by providerOf.
      } else {
        return;
      }
    }
    connections[strategy] = connection;
  }
  return connections;
}

/**
 * The connections as Clerk's environment JSON has them (`UserSettings.Socials`); `settings`: as the
 * settings file writes them, a custom provider's authorize URL and scope too (the control API's answer).
 */
export function socialConnectionsJSON(connections: SocialConnections, settings = false): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(connections).map(([strategy, c]) => [
      strategy,
      {
        enabled: c.enabled,
        required: c.required,
        authenticatable: c.authenticatable,
        block_email_subaddresses: c.blockEmailSubaddresses,
        strategy,
        not_selectable: c.notSelectable,
        deprecated: c.deprecated,
        name: c.name,
        logo_url: c.logoUrl,
        ...(settings && c.provider ? { authorize_url: c.provider.authorizeUrl, scope: c.provider.scope } : {}),
      },
    ]),
  );
}

/** The strategies a sign-in or sign-up may start with (clerk-js's `authenticatableSocialStrategies`). */
export function authenticatableSocialStrategies(connections: SocialConnections): string[] {
  return Object.entries(connections)
    .filter(([, c]) => c.enabled && c.authenticatable)
    .map(([strategy]) => strategy)
    .sort();
}

/** An OAuth strategy's name, whether or not the instance has it on (`oauth_…`, as Clerk's schema patterns it). */
export const isOAuthStrategy = (strategy: string | null): strategy is string =>
  strategy !== null && /^oauth_[a-z0-9_]+$/.test(strategy);
