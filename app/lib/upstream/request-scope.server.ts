import type { LoadContext } from "../load-context.server";
import type { AttemptOutcome } from "../metrics.server";
import { logEvent } from "../log.server";
import { DEFAULT_BACKOFF_MS } from "./backoff.server";
import {
  callUpstream,
  classifyFailure,
  createDeduper,
  OverAllowanceError,
  UPSTREAM_POLICY,
  UpstreamUnavailableError,
} from "./policy.server";
import { WEBHOOKS, type Payer } from "./payer.server";
import type { Priority } from "./call-budget.server";
import { callSite, remember, unavailable } from "./refusals.server";

/**
 * One request's share of the upstream policy: a deadline for all its upstream
 * calls, and identical reads made once. It lives in the load context, which
 * every loader and action of the request shares (Remix gives each loader its
 * own copy of the Request, so nothing can be keyed on that).
 */
export type UpstreamScope = { deadline: number; once: ReturnType<typeof createDeduper> };

export function createUpstreamScope(now = Date.now()): UpstreamScope {
  return { deadline: now + UPSTREAM_POLICY.deadlineMs, once: createDeduper() };
}

type ScopedContext = Pick<
  LoadContext,
  "upstream" | "retryAfter" | "timing" | "metrics" | "backoff" | "clerkBudget" | "payer"
>;

/**
 * The call, unless the upstream asked us to wait (a 429, here or on another
 * instance): then, and when this call gets a 429, the upstream is given up
 * on at once, and no call to it starts until its Retry-After has passed.
 */
async function unlessHeldBack<T>(
  context: Pick<ScopedContext, "backoff">,
  upstream: string,
  call: () => Promise<T>,
): Promise<T> {
  const until = context.backoff.heldUntil(upstream);
  if (until !== null) throw new UpstreamUnavailableError(upstream, 0, Math.ceil((until - Date.now()) / 1000));
  try {
    return await call();
  } catch (error) {
    const failure = classifyFailure(error);
    if (failure?.status !== 429) throw error;
    const waitMs = failure.retryAfterMs ?? DEFAULT_BACKOFF_MS;
    context.backoff.hold(upstream, Date.now() + waitMs);
    logEvent("upstream_backoff", { upstream, seconds: Math.ceil(waitMs / 1000) });
    throw new UpstreamUnavailableError(upstream, 1, Math.ceil(waitMs / 1000));
  }
}

/**
 * An attempt's call taken from the fleet's budget of Clerk calls and charged
 * to `payer`; when the payer's allowance is spent, their 429's error
 * (OverAllowanceError), and when the fleet's budget is, the 503's, each with
 * Retry-After: when a call is free again.
 */
export async function overBudget(
  context: Pick<ScopedContext, "clerkBudget">,
  upstream: string,
  payer: Payer,
  priority: Priority = "needed",
): Promise<void> {
  const refusal = await context.clerkBudget.take(upstream, payer, priority);
  if (!refusal) return;
  const seconds = Math.max(1, Math.ceil(refusal.waitMs / 1000));
  if (refusal.by === "allowance") throw new OverAllowanceError(upstream, seconds);
  throw new UpstreamUnavailableError(upstream, 0, seconds);
}

/**
 * Each attempt counted in the metrics, and first taken from the budget,
 * charged to whoever the request's payer is at that moment (retries are
 * calls too).
 */
const counted = (
  context: Pick<ScopedContext, "metrics" | "clerkBudget">,
  upstream: string,
  payer: () => Payer,
  priority: Priority = "needed",
) => ({
  onAttempt: (outcome: AttemptOutcome, seconds: number | null) =>
    context.metrics.upstreamAttempt(upstream, outcome, seconds),
  beforeAttempt: () => overBudget(context, upstream, payer(), priority),
});

/**
 * A read for this request: retried under the policy, made once per `key`
 * within the request, and a 503 response when the upstream gives up.
 * `priority`: whether it may wait when the fleet is busy (call-budget.server).
 */
export function readUpstream<T>(
  context: ScopedContext,
  upstream: string,
  key: string,
  read: () => Promise<T>,
  priority: Priority = "needed",
): Promise<T> {
  const { deadline, once } = context.upstream;
  const site = callSite();
  return once(`${upstream} ${key}`, () =>
    unlessHeldBack(context, upstream, () =>
      context.timing.time("upstream", () =>
        callUpstream(upstream, read, { deadline, ...counted(context, upstream, () => context.payer, priority) }),
      ),
    ),
  )
    .catch((error: unknown) => remember(site, error))
    .catch((error: unknown) => unavailable(context, error));
}

/**
 * A read made outside any page (for Clerk's webhooks, charged to them):
 * held back after a 429 and retried as a page's reads are, and counted; an
 * UpstreamUnavailableError (not a response) when the upstream gives up.
 */
export function readUpstreamOutsidePages<T>(
  services: Pick<ScopedContext, "backoff" | "metrics" | "clerkBudget">,
  upstream: string,
  read: () => Promise<T>,
  payer: Payer = WEBHOOKS,
): Promise<T> {
  return unlessHeldBack(services, upstream, () =>
    callUpstream(
      upstream,
      read,
      counted(services, upstream, () => payer),
    ),
  );
}

/**
 * A write: tried once, a 503 response if the upstream fails. An `idempotent`
 * write (one that does the same however often it is made, such as revoking a
 * session) is retried as a read is.
 */
export function writeUpstream<T>(
  context: ScopedContext,
  upstream: string,
  write: () => Promise<T>,
  { idempotent = false } = {},
): Promise<T> {
  const site = callSite();
  return unlessHeldBack(context, upstream, () =>
    context.timing.time("upstream", () =>
      callUpstream(upstream, write, {
        retry: idempotent,
        deadline: context.upstream.deadline,
        ...counted(context, upstream, () => context.payer),
      }),
    ),
  )
    .catch((error: unknown) => remember(site, error))
    .catch((error: unknown) => unavailable(context, error));
}
