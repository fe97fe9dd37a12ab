import { fullName } from "./public-profile";
import { factorVerificationAge } from "./mfa";
import { permissionKeysOf } from "./roles";
import type { SessionRecord, Store } from "../state/store";
import { sessionClaims, signJwt, type TokenSettings } from "./tokens";
import { organizationAsked, sessionTasks } from "./session-tasks";

/**
 * A session's token: its user, the organization asked for (`orgId`; the
 * session's active one when undefined, none when null unless the instance
 * forces an organization), its actor when the
 * session is an impersonation. `azp` is the Origin of the browser's request
 * (absent for the Backend API's), `ttlSeconds` the lifetime asked for.
 */
export function mintSessionToken(
  store: Store,
  settings: TokenSettings,
  session: SessionRecord,
  options: { azp?: string; orgId?: string | null; ttlSeconds?: number } = {},
): string {
  const user = store.user(session.userId);
  const asked = organizationAsked(store, options.orgId);
  const activeOrgId = asked === undefined ? session.lastActiveOrganizationId : asked;
  const org = activeOrgId ? store.org(activeOrgId) : null;
  const membership = org && user ? store.membership(org.id, user.id) : null;
  return signJwt(
    settings.key,
    sessionClaims({
      issuer: settings.issuer,
      sessionId: session.id,
      userId: session.userId,
      name: user ? fullName(user) : null,
      imageUrl: null,
      org:
        org && membership
          ? { id: org.id, slug: org.slug, role: membership.role, permissions: permissionKeysOf(store, membership.role) }
          : null,
      ttlSeconds: options.ttlSeconds ?? settings.tokenTtlSeconds,
      version: settings.sessionTokenVersion,
      azp: options.azp,
      actor: session.actor,
      fva: factorVerificationAge(session),
      status: sessionTasks(store, session).length > 0 ? "pending" : "active",
    }),
  );
}
