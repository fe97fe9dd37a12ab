/**
 * What the app counts for operators. server/metrics.ts records it with
 * prom-client when METRICS_PORT is set; otherwise nothing is recorded.
 */

/**
 * What happened to one attempt of a call to an upstream: it answered (`ok`),
 * refused the request as ours to fix (`client_error`, a 4xx, not retried), gave
 * no answer in time (`timed_out`) or failed (`retried`, a 5xx or a failed
 * connection) and is tried again, or failed with no attempt left (`gave_up`:
 * the person gets the 503 page).
 */
/**
 * hit: a copy within its fresh lifetime; miss: read from Clerk; stale: an
 * older copy shown because Clerk could not answer; too_old_to_authorize: Clerk
 * could not answer and the only copy, past its fresh lifetime, would have
 * said who may see an organization, so nothing was answered.
 */
export type LookupResult = "hit" | "miss" | "stale" | "too_old_to_authorize";

/**
 * `over_budget`: no call made, the fleet's budget of Clerk calls was spent; `over_allowance`: no call made, the
 * payer's own allowance was (app/lib/upstream/call-budget.server.ts).
 */
export type AttemptOutcome =
  "ok" | "client_error" | "timed_out" | "retried" | "gave_up" | "over_budget" | "over_allowance";

/**
 * What became of a form sent with a session token that is stale for a timing
 * reason (see app/lib/clerk/stale-token.server.ts): Clerk confirmed the
 * session and the action ran (`ran`), the session is no longer the person's
 * or no longer active (`refused`), the token could not stand for anyone
 * (`unverified`: no token, a bad signature, or expired too long ago), Clerk
 * could not say (`unavailable`), or a sign-out ended the session (`signed_out`).
 */
export type StaleTokenOutcome = "ran" | "refused" | "unverified" | "unavailable" | "signed_out";

export type AppMetrics = {
  /** One attempt of a call named `upstream` ("clerk.users.getUser"…); `seconds` is null when none was made. */
  upstreamAttempt(upstream: string, outcome: AttemptOutcome, seconds: number | null): void;
  /**
   * A cache lookup: answered from a kept copy (`hit`), from Clerk (`miss`), or
   * from an old copy because Clerk could not answer (`stale`); or refused
   * because the only copy was past its fresh lifetime and grants access
   * (`too_old_to_authorize`).
   */
  cacheLookup(cache: string, result: LookupResult): void;
  rateLimitRefusal(limit: string): void;
  staleTokenPost(outcome: StaleTokenOutcome): void;
  /** An unexpected error's report to PostHog: `sent` (queued), or `dropped` (over the flood bound). */
  errorReport(outcome: "sent" | "dropped"): void;
  /** A request to the Clerk webhook endpoint, by what came of it. */
  clerkWebhook(outcome: WebhookOutcome): void;
};

/** `applied`; `ignored` (an event no cache depends on); `replayed` (its id already applied); `refused` (unsigned, forged, too old, too large); `unavailable` (Redis or Clerk away: 503); `in_progress` (another delivery of it is being applied, or one that failed left its claim: 503). */
export type WebhookOutcome = "applied" | "ignored" | "replayed" | "refused" | "unavailable" | "in_progress";

export const NO_METRICS: AppMetrics = {
  upstreamAttempt() {},
  cacheLookup() {},
  rateLimitRefusal() {},
  staleTokenPost() {},
  errorReport() {},
  clerkWebhook() {},
};
