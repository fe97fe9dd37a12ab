import type { Analytics } from "./analytics/analytics.server";
import type { ClerkClient } from "./clerk/client.server";
import type { HandshakeClaims } from "./clerk/handshake-binding.server";
import type { SigningKeys } from "./clerk/signing-keys.server";
import type { RateLimiter } from "./http/rate-limit.server";
import type { AppMetrics } from "./metrics.server";
import { createServerTiming, type ServerTiming } from "./http/server-timing.server";
import type { OrgCaches } from "./cache/org-caches.server";
import type { ThemeStore } from "./theme/theme.server";
import type { Backoff } from "./upstream/backoff.server";
import type { CallBudget } from "./upstream/call-budget.server";
import { addressPays, type Payer } from "./upstream/payer.server";
import { createUpstreamScope, type UpstreamScope } from "./upstream/request-scope.server";

/**
 * What lives as long as the process: made once in server.ts and handed to
 * every request, so a test (or a second instance) can build its own.
 */
export type AppServices = {
  analytics: Analytics | null;
  clerk: ClerkClient;
  /** Which session tokens Clerk signed, checked before Clerk's SDK is shown them. */
  signingKeys: SigningKeys;
  metrics: AppMetrics;
  rateLimiter: RateLimiter;
  orgs: OrgCaches;
  /** Upstream endpoints that answered 429, held back until their Retry-After (on every instance). */
  backoff: Backoff;
  /**
   * The fleet's Clerk Backend API calls per 10 s, one taken before each attempt (in Redis when there is one),
   * charged to the attempt's payer, each with an allowance of their own.
   */
  clerkBudget: CallBudget;
  theme: ThemeStore;
  /** Handshake returns already honoured, across the fleet (in Redis when there is one): each is honoured once. */
  handshakeClaims: HandshakeClaims;
  /**
   * Test servers only (local mode with the emulator's control API on): the
   * emulator's armed faults, for the few points inside the app a test must
   * be able to break ("app render-ready"). Absent in production.
   */
  testFaults?: { take(point: string, path: string): unknown };
};

/** What server.ts knows of one request before Remix sees it. */
export type RequestFacts = {
  requestId: string;
  /** This response's Content-Security-Policy nonce. */
  cspNonce: string;
  /** The client's address (behind a trusted proxy, the forwarded one), for rate limits. */
  clientIp: string;
  /** A page's data fetched by the app in the browser (Remix's `.data` URLs), not a document. */
  dataRequest: boolean;
  /**
   * The method the browser sent. (The loaders Remix runs after an action get
   * a GET copy of the POST; what the browser may be redirected to depends on
   * what it sent.)
   */
  method: string;
  /** The Remix route id the request is for ("routes/orgs.$slug._index"…), for error reports. */
  routeId: string;
};

/**
 * The load context: the services plus this request's own state, shared by all
 * its loaders and its action (one object per request).
 */
export type LoadContext = AppServices &
  RequestFacts & {
    upstream: UpstreamScope;
    /** Set by whatever answered 429 or 503, so the document or data response can say when to come back. */
    retryAfter: { seconds: number | null };
    timing: ServerTiming;
    /** Who the request is for, once its session is checked: the distinct id of an error report. */
    person: { userId: string | null };
    /**
     * Who the request's Clerk calls are charged to (call-budget.server): its client address until a
     * person is known (their session checked; or, for the calls that check it, the person a token of
     * Clerk's names), then that person.
     */
    payer: Payer;
    /** The unexpected errors already logged and reported for this request (several loaders may share one). */
    recordedErrors: WeakSet<object>;
  };

export function createLoadContext(services: AppServices, facts: RequestFacts): LoadContext {
  return {
    ...services,
    ...facts,
    upstream: createUpstreamScope(),
    retryAfter: { seconds: null },
    timing: createServerTiming(),
    person: { userId: null },
    payer: addressPays(facts.clientIp),
    recordedErrors: new WeakSet(),
  };
}

declare module "@remix-run/node" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends LoadContext {}
}
