import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import express, { type Router } from "express";
import { createBackendApi } from "./backend";
import { createControlApi } from "./control";
import { Faults } from "./http/faults";
import { createFrontendApi } from "./frontend";
import { enrollByDomains } from "./domain/organization-domains";
import { createWebhookPortalToken, isWebhookPortalToken } from "./domain/webhook-endpoints";
import { normaliseOrigin, proxyUrlOf, publicOrigin } from "./http/proxy";
import { createRateLimiter, type RateLimiter } from "./http/rate-limits";
import { recordAnswersTo } from "./http/recorder";
import { ApiError } from "./domain/errors";
import { markAnswered, sendJson } from "./http/routing";
import { serveDefaultAvatar } from "./http/default-avatars";
import { DEFAULT_AVATAR_PATH } from "./domain/public-profile";
import { DEFAULT_SETTINGS, type Settings } from "./settings";
import { Store } from "./state/store";
import { generateSigningKey, signingKeyFromPem, type SigningKey, type TokenSettings } from "./domain/tokens";
import { createWebhookSender, type WebhookSettings } from "./webhooks/delivery";

export { DEMO_PASSWORD } from "./state/store";
export { TEST_EMAIL_CODE } from "./frontend";
export {
  EMULATOR_ISSUER,
  emulatorIssuer,
  emulatorPublishableKey,
  emulatorSecretKey,
  emulatorWebhookSecret,
  persistentSecret,
} from "./domain/instance-keys";
export { type WebhookSettings } from "./webhooks/delivery";
export { newWebhookSecret } from "./webhooks/signing";
export { DEFAULT_SETTINGS, SettingsError, settingsFromArgs, settingsFromEnv, type Settings } from "./settings";

/** What the emulator's parts read of the settings (src/settings.ts); what is left out takes its default. */
type EmulatorSlice = Pick<
  Settings,
  | "tokenTtlSeconds"
  | "sessionTokenVersion"
  | "applicationName"
  | "demoPassword"
  | "organizationSlugs"
  | "emailLinkVerification"
  | "passkeys"
  | "instance"
  | "backendLatencyMs"
  | "frontendLatencyMs"
  | "allowedOrigins"
  | "rateLimits"
  | "recordDir"
  | "development"
>;

/** The settings' slice, each optional; `dataDir` (state file and signing key) and the tokens' `issuer` required. */
export type ClerkEmulatorOptions = Partial<EmulatorSlice> &
  Pick<Settings, "dataDir"> &
  Pick<TokenSettings, "issuer"> & {
    /** Path the emulator is mounted at on the app's origin. */
    mountPath: string;
    secretKey: string;
    /**
     * Where browsers reach the Frontend API (the app's origin plus the mount
     * path), for the links in invitations and sign-in tokens. Without it, the
     * origin of the Backend API request that asks for the link is used.
     */
    frontendApiUrl?: string;
    /** Where to send Clerk's webhooks for every change, and the secret to sign them with; none: nothing is sent. */
    webhooks?: WebhookSettings;
    /** Tests only: the clock the rate limits' windows follow. */
    rateLimitClock?: () => number;
  };

export type ClerkEmulator = {
  /** Clerk's Frontend API (`/v1/…`) and Backend API (`/api/v1/…`). */
  router: Router;
  /** The control API for tests (`/_emulator/…`): reset, faults, calls, state, sessions. Mount it only where tests run. */
  control: Router;
  store: Store;
  faults: Faults;
  key: SigningKey;
  rateLimiter: RateLimiter;
  close(): void;
};

/** How long a session lasts from its sign-in: Clerk's default session lifetime, 7 days. */
const SESSION_LIFETIME_MS = 7 * 86_400_000;

/** The options given a value: an option given as undefined takes its default, as one left out does. */
function givenOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function loadSigningKey(dataDir: string | null): SigningKey {
  if (!dataDir) return generateSigningKey();
  const file = join(dataDir, "clerk-emulator-key.pem");
  if (existsSync(file)) return signingKeyFromPem(readFileSync(file, "utf8"), "ins_emulator");
  const key = generateSigningKey();
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(file, key.privateKeyPem, { mode: 0o600 });
  return signingKeyFromPem(key.privateKeyPem, "ins_emulator");
}

/**
 * A stand-in for Clerk: the Frontend API at `<mount>/v1/…` (what clerk-js
 * calls through `proxyUrl`), the Backend API at `<mount>/api/v1/…` (what
 * @clerk/backend calls through CLERK_API_URL) and, for tests, a control API
 * at `<mount>/_emulator/…` (reset, faults, call counts, ready-made sessions).
 */
export function createClerkEmulator(options: ClerkEmulatorOptions): ClerkEmulator {
  const settings: EmulatorSlice = { ...DEFAULT_SETTINGS, ...givenOnly(options) };
  const { organizationSlugs, applicationName, demoPassword, emailLinkVerification, passkeys } = settings;
  const store = new Store(options.dataDir ? join(options.dataDir, "clerk-emulator.json") : null, {
    organizationSlugs,
    applicationName,
    demoPassword,
    passkeys,
    // A copy: the control API changes the running instance's switches, never the defaults or the caller's.
    // `--email-link-verification on` is the older way to list email_link in the instance's verifications.
    instance: {
      ...settings.instance,
      emailLinkVerification: settings.instance.emailLinkVerification || emailLinkVerification,
    },
    publicUrl: options.frontendApiUrl ?? options.mountPath,
  });
  const tokens: TokenSettings = {
    key: loadSigningKey(options.dataDir),
    issuer: options.issuer,
    tokenTtlSeconds: settings.tokenTtlSeconds,
    sessionTokenVersion: settings.sessionTokenVersion,
    sessionLifetimeMs: SESSION_LIFETIME_MS,
  };
  const faults = new Faults();
  const webhooks = options.webhooks ? createWebhookSender(store, options.webhooks) : null;
  if (webhooks) {
    store.onChange((reset) => webhooks.changed(reset));
    store.onMessage((message) => webhooks.sent(message));
  }
  // Verified domains hand out invitations and suggestions to whoever has an address on them, however they got it.
  // The changes it makes come back here; the pass already under way covers them.
  let enrolling = false;
  store.onChange(() => {
    if (enrolling) return;
    enrolling = true;
    try {
      enrollByDomains(store);
    } finally {
      enrolling = false;
    }
  });
  const router = express.Router();
  // The control API is mounted on its own (or not at all): leave its paths to it.
  router.use("/_emulator", (_req, _res, next) => next("router"));
  if (settings.recordDir) router.use(recordAnswersTo(settings.recordDir));
  // Links the browser opens (invitations, sign-in tokens): the configured URL, else the proxy's, else ours.
  const frontendApiUrl = (req: express.Request) =>
    options.frontendApiUrl ??
    proxyUrlOf(req, options.secretKey)?.href.replace(/\/+$/, "") ??
    `${publicOrigin(req) ?? ""}${options.mountPath}`;
  const rateLimiter = createRateLimiter({
    mode: settings.rateLimits,
    secretKey: options.secretKey,
    now: options.rateLimitClock,
  });
  router.use("/api", rateLimiter.backend);
  router.use(rateLimiter.frontend);
  const latency = settings.backendLatencyMs;
  if (latency > 0) router.use("/api", (_req, _res, next) => void setTimeout(next, latency));
  const frontendLatency = settings.frontendLatencyMs;
  // The answer is held back, not the handling: a call that reached Clerk takes effect even when the
  // browser navigates away before the answer arrives (a reload right after a click, as tests do).
  if (frontendLatency > 0)
    router.use("/v1", (_req, res, next) => {
      const end = res.end.bind(res) as (...args: unknown[]) => express.Response;
      res.end = ((...args: unknown[]) => {
        // Answered, though nothing is sent yet: the router must not answer again (http/routing.ts).
        markAnswered(res);
        setTimeout(() => end(...args), frontendLatency);
        return res;
      }) as express.Response["end"];
      next();
    });
  // Default avatars (users and organizations without an image of their own), drawn from their address alone.
  router.get(`${DEFAULT_AVATAR_PATH}/:payload`, serveDefaultAvatar);
  // Uploaded profile images and logos: their ids are unguessable and never reused, so they keep.
  router.get("/images/:id", (req, res) => {
    const image = store.image(req.params.id);
    if (!image) return sendJson(res, 404, new ApiError(404, "resource_not_found", "No such image").toJSON());
    res.setHeader("Content-Type", image.record.contentType);
    res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
    res.setHeader("X-Content-Type-Options", "nosniff");
    res.setHeader("Content-Security-Policy", "default-src 'none'");
    res.end(image.bytes);
  });
  router.get("/svix/:token", (req, res) => {
    if (!isWebhookPortalToken(store, req.params.token))
      return sendJson(res, 404, new ApiError(404, "resource_not_found", "No such portal").toJSON());
    sendJson(res, 200, {
      endpoint: options.webhooks?.url ?? null,
      enabled: store.state.instance.svixApp,
      deliveries: webhooks?.deliveries() ?? [],
    });
  });
  const allowedOrigins = settings.allowedOrigins.map((o) => normaliseOrigin(o) ?? o);
  router.use(
    "/api",
    createBackendApi({
      store,
      faults,
      secretKey: options.secretKey,
      frontendApiUrl,
      tokens,
      allowedOrigins,
      // `svix_url`'s read-only portal: each address is a fresh secret (domain/webhook-endpoints.ts).
      webhookPortalUrl: (req) => `${frontendApiUrl(req)}/svix/${createWebhookPortalToken(store)}`,
    }),
  );
  router.use(
    createFrontendApi({
      store,
      tokens,
      faults,
      mountPath: options.mountPath,
      secretKey: options.secretKey,
      allowedOrigins,
      frontendApiUrl,
      development: settings.development,
    }),
  );

  return {
    router,
    control: createControlApi({
      store,
      faults,
      rateLimiter,
      webhooks,
      mountPath: options.mountPath,
      tokens,
      development: settings.development,
    }),
    store,
    faults,
    key: tokens.key,
    rateLimiter,
    close() {
      webhooks?.close();
      store.flush();
    },
  };
}
