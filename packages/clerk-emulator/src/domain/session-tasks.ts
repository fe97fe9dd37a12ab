import { twoFactorEnabled } from "./mfa";
import type { SessionRecord, Store } from "../state/store";

/**
 * Clerk's session tasks (Core 3): what a signed-in person must still do before the session counts as
 * signed in. A session with a task is `pending` (its JSON's `status`, its tokens' `sts`), and lists it
 * in `tasks` (`[{ "key": "choose-organization" }]`); clerk-js then shows the task (<SignIn/> continues
 * to `…/tasks/choose-organization`) and @clerk/backend treats the session as signed out.
 *
 * Three tasks here, each worked out from the session and its user as they are, not kept, so doing
 * what it asks resolves it and undoing it brings it back:
 * - `reset-password`: the session began while the user's password was marked compromised (the
 *   Backend API's `set_compromised`: "prompted to reset their password on their next sign-in"; the
 *   sign-in itself refused the password, so it took another factor). A new password
 *   (`/v1/me/change_password`, which asks for no current one then, as <TaskResetPassword/> sends
 *   none) clears the mark and resolves it; sessions begun before the mark are left alone.
 * - `setup-mfa`: the instance requires multi-factor (`user_settings.sign_up.mfa.required`) and the
 *   user has no second factor; adding one (an authenticator app, or a phone number reserved for
 *   second factors, as <TaskSetupMFA/> does) resolves it.
 * - `choose-organization`: the instance forces an organization
 *   (`organization_settings.force_organization_selection`, the dashboard's "Allow personal accounts"
 *   off) and the session has no active one; choosing one (`touch` with `active_organization_id`)
 *   resolves it, and a session left without one (its organization deleted) is pending again.
 * Securing the account comes first, as Clerk's own specs take a security task before the organization
 * (`session-tasks-sign-in-reset-password` resets the password, then chooses one).
 */

export type SessionTaskKey = "reset-password" | "setup-mfa" | "choose-organization";

/** Whether the instance makes every session have an active organization. */
export function organizationRequired(store: Store): boolean {
  return store.settings.instance.forceOrganizationSelection && store.state.instance.organizationSettings.enabled;
}

/** The session's tasks, in the order Clerk's components take them; none for a session that is over. */
export function sessionTasks(store: Store, session: SessionRecord): SessionTaskKey[] {
  if (session.status !== "active") return [];
  const tasks: SessionTaskKey[] = [];
  const user = store.user(session.userId);
  if (session.beganCompromised && user?.passwordCompromised) tasks.push("reset-password");
  if (store.settings.instance.mfaRequired && user && !twoFactorEnabled(store, user)) tasks.push("setup-mfa");
  if (organizationRequired(store) && !session.lastActiveOrganizationId) tasks.push("choose-organization");
  return tasks;
}

/** The session's status as Clerk shows it: `pending` while it has tasks, else its own. */
export function sessionStatus(store: Store, session: SessionRecord): string {
  return sessionTasks(store, session).length > 0 ? "pending" : session.status;
}

/**
 * A new session on an instance that forces an organization begins in one when the user has any (the
 * newest membership), so only someone without an organization gets the task: Clerk's own spec
 * (`session-tasks-sign-in-reset-password`) signs in a member and expects no choose-organization step.
 * To be called inside a store write.
 */
export function beginInAnOrganization(store: Store, session: SessionRecord): void {
  if (!organizationRequired(store) || session.lastActiveOrganizationId) return;
  const newest = store.membershipsOfUser(session.userId).sort((a, b) => b.createdAt - a.createdAt)[0];
  if (newest) session.lastActiveOrganizationId = newest.orgId;
}

/**
 * The organization a `touch` or a token request leaves active. Asking for none (null: the personal
 * account) on an instance that forces an organization keeps the previous one, as Clerk's OpenAPI says
 * of both endpoints (`undefined`: keep it).
 */
export function organizationAsked(store: Store, asked: string | null | undefined): string | null | undefined {
  return asked === null && organizationRequired(store) ? undefined : asked;
}
