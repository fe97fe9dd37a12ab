import { fullName, orgImageUrl, userImageUrl } from "./public-profile";
import { permissionKeysOf } from "./roles";
import type { Metadata, SessionRecord, Store } from "../state/store";

/**
 * Clerk's JWT template shortcodes (`{{user.id}}`, `{{org.role}}`,
 * `{{user.public_metadata.plan || 'free'}}`…), resolved for a session.
 */

/** A path into metadata (`user.public_metadata.profile.interests`), undefined where it leads nowhere. */
function dig(value: unknown, path: string[]): unknown {
  let at = value;
  for (const part of path) {
    if (typeof at !== "object" || at === null) return undefined;
    at = (at as Record<string, unknown>)[part];
  }
  return at;
}

const seconds = (ms: number | null) => (ms === null ? null : Math.floor(ms / 1000));

/**
 * What Clerk's documented shortcodes resolve to for a session: the user's
 * attributes (never their private metadata), the active organization and the
 * person's role and permissions in it, and the session's actor. Attributes
 * the emulator's instance does not have (phone numbers, usernames, web3
 * wallets, two-factor) resolve as for a user who has none.
 */
function shortcodeScope(store: Store, session: SessionRecord) {
  const user = store.user(session.userId);
  const orgId = session.lastActiveOrganizationId;
  const org = orgId ? store.org(orgId) : null;
  const membership = org && user ? store.membership(org.id, user.id) : null;
  const primary = user?.emails.find((e) => e.id === user.emailId);
  return {
    user: user
      ? {
          id: user.id,
          external_id: user.externalId,
          first_name: user.firstName,
          last_name: user.lastName,
          full_name: fullName(user) || null,
          username: null,
          primary_email_address: user.email,
          email_verified: primary?.verified ?? true,
          primary_phone_address: null,
          phone_number_verified: false,
          primary_web3_wallet: null,
          image_url: userImageUrl(store, user),
          has_image: Boolean(user.imageId),
          two_factor_enabled: false,
          public_metadata: user.publicMetadata,
          unsafe_metadata: user.unsafeMetadata,
          created_at: seconds(user.createdAt),
          updated_at: seconds(user.updatedAt),
          last_sign_in_at: seconds(user.lastSignInAt),
        }
      : {},
    org:
      org && membership
        ? {
            id: org.id,
            name: org.name,
            slug: org.slug,
            image_url: orgImageUrl(store, org),
            has_image: Boolean(org.imageId),
            public_metadata: org.publicMetadata,
            role: membership.role,
          }
        : {},
    org_membership: membership
      ? { permissions: permissionKeysOf(store, membership.role), public_metadata: membership.publicMetadata ?? {} }
      : {},
    session: { actor: session.actor ?? null },
  };
}

type Scope = ReturnType<typeof shortcodeScope>;

/** One operand of a shortcode: a quoted literal, or a dotted path into the scope. */
function operand(scope: Scope, text: string): unknown {
  const quoted = /^(['"])(.*)\1$/.exec(text);
  if (quoted) return quoted[2];
  return dig(scope, text.split("."));
}

/** `{{a || b || 'fallback'}}`: the first operand that has a value. */
function evaluate(scope: Scope, expression: string): unknown {
  for (const part of expression.split("||")) {
    const value = operand(scope, part.trim());
    if (value !== undefined && value !== null && value !== "") return value;
  }
  return null;
}

const SHORTCODE = /\{\{\s*([^}]+?)\s*\}\}/g;

/**
 * A claim's value with its shortcodes replaced: a string that is one
 * shortcode takes the value's own type (an object, a boolean, null); one with
 * text around shortcodes is a string, a value-less shortcode in it an empty
 * string. Objects and arrays are rendered through.
 */
function render(scope: Scope, value: unknown): unknown {
  if (typeof value === "string") {
    const whole = /^\{\{\s*([^}]+?)\s*\}\}$/.exec(value);
    if (whole) return evaluate(scope, whole[1] ?? "");
    return value.replace(SHORTCODE, (_, expression: string) => {
      const v = evaluate(scope, expression);
      if (v === null) return "";
      return typeof v === "object" ? JSON.stringify(v) : String(v as string | number | boolean);
    });
  }
  if (Array.isArray(value)) return value.map((v) => render(scope, v));
  if (typeof value === "object" && value !== null) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, render(scope, v)]));
  }
  return value;
}

/** A template's claims with every shortcode resolved for the session. */
export function renderClaims(store: Store, session: SessionRecord, claims: Metadata): Record<string, unknown> {
  return render(shortcodeScope(store, session), claims) as Record<string, unknown>;
}
