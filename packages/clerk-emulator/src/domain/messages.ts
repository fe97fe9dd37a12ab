import { newId } from "../state/ids";
import type { Store } from "../state/store";
import { applySmsTemplate, applyTemplate } from "./templates";

/**
 * The emails and text messages Clerk would send, as Clerk's `email.created`
 * and `sms.created` webhooks carry them. The emulator delivers none: the
 * webhook is the only place they appear, which is what an app's tests read
 * the verification code from (it is always TEST_EMAIL_CODE, 424242).
 *
 * Shapes: `EmailJSON` and `SMSMessageJSON` in clerk/javascript's
 * packages/backend/src/api/resources/JSON.ts, and `EmailEventPayload` and
 * `SmsEventPayload` in Clerk's webhooks OpenAPI (clerk/openapi-specs,
 * webhooks/2025-04-15.yml, whose `email.created` example gives the
 * verification code's `data`). Subjects and bodies are the emulator's own words.
 */
export type EmailMessage = {
  object: "email";
  id: string;
  slug: string | null;
  from_email_name: string;
  reply_to_email_name: string | null;
  to_email_address: string;
  email_address_id: string | null;
  user_id: string | null;
  subject: string;
  body: string;
  body_plain: string | null;
  status: "queued";
  data: Record<string, unknown>;
  delivered_by_clerk: boolean;
};

export type SmsMessage = {
  object: "sms_message";
  id: string;
  slug: string | null;
  from_phone_number: string;
  to_phone_number: string;
  phone_number_id: string | null;
  user_id: string | null;
  message: string;
  status: "queued";
  data: Record<string, unknown>;
  delivered_by_clerk: boolean;
  created_at_ms: number;
};

export type OutgoingMessage = EmailMessage | SmsMessage;

/** Clerk's sender name for its own emails (`notifications@…`). */
const FROM_EMAIL_NAME = "notifications";
/** The number Clerk's example texts come from; the emulator's instance has no phone numbers of its own. */
const FROM_PHONE_NUMBER = "+15555550100";

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** "26 November 2026, 09:30 UTC", as Clerk's `requested_at`. */
function requestedAt(ms: number): string {
  const d = new Date(ms);
  const month = d.toLocaleString("en-GB", { month: "long", timeZone: "UTC" });
  const time = d.toISOString().slice(11, 16);
  return `${d.getUTCDate()} ${month} ${d.getUTCFullYear()}, ${time} UTC`;
}

/** "Chrome, OS X", as Clerk's `requested_by`: the browser and the system the request came from. */
function requestedBy(userAgent: string | null): string {
  const ua = userAgent ?? "";
  const browser = /(Firefox|Edg|OPR|Chrome|Safari)\//.exec(ua.replace("HeadlessChrome", "Chrome"))?.[1];
  const names: Record<string, string> = { Edg: "Edge", OPR: "Opera" };
  const system = /iPhone|iPad/.test(ua)
    ? "iOS"
    : /Android/.test(ua)
      ? "Android"
      : /Mac OS X/.test(ua)
        ? "OS X"
        : /Windows/.test(ua)
          ? "Windows"
          : /Linux/.test(ua)
            ? "Linux"
            : null;
  return [browser ? (names[browser] ?? browser) : null, system].filter(Boolean).join(", ") || "Unknown";
}

/** The `app` block of every email's `data`, as in Clerk's example. */
function appData(store: Store) {
  const origin = /^https?:\/\/[^/]+/.exec(store.settings.publicUrl)?.[0] ?? "";
  return {
    name: store.settings.applicationName,
    domain_name: origin.replace(/^https?:\/\//, ""),
    url: origin,
    logo_url: null,
    logo_image_url: "",
  };
}

const THEME = { primary_color: "#335bf1", button_text_color: "#ffffff", show_clerk_branding: false };

function email(
  store: Store,
  fields: Pick<EmailMessage, "slug" | "to_email_address" | "email_address_id" | "user_id" | "subject"> & {
    paragraphs: string[];
    data: Record<string, unknown>;
  },
): EmailMessage {
  const { paragraphs, data, ...rest } = fields;
  const html = paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`).join("\n");
  // The instance's template for the slug (domain/templates.ts): its sender names, and whether Clerk delivers it.
  return applyTemplate(store, {
    object: "email",
    id: newId("ema"),
    from_email_name: FROM_EMAIL_NAME,
    reply_to_email_name: null,
    ...rest,
    body: `<!DOCTYPE html>\n<html><head><meta charset="utf-8"><title>${escapeHtml(fields.subject)}</title></head>\n<body>\n${html}\n</body></html>\n`,
    body_plain: `${paragraphs.join("\n\n")}\n`,
    status: "queued",
    data: { app: appData(store), theme: THEME, ...data },
    delivered_by_clerk: true,
  });
}

/**
 * A one-time code by email (`verification_code`): verifying an address at
 * sign-up or when adding one to a profile, and signing in with an email code.
 */
export function verificationCodeEmail(
  store: Store,
  /** The requesting browser's User-Agent, which Clerk names in the email (`requested_by`). */
  userAgent: string | null,
  to: { address: string; emailAddressId: string | null; userId: string | null },
  code: string,
): EmailMessage {
  const at = requestedAt(Date.now());
  const by = requestedBy(userAgent);
  const user = to.userId ? store.user(to.userId) : null;
  return email(store, {
    slug: "verification_code",
    to_email_address: to.address,
    email_address_id: to.emailAddressId,
    user_id: to.userId,
    subject: `${code} is your verification code`,
    paragraphs: [
      `${code} is your verification code for ${store.settings.applicationName}.`,
      "Do not share this with anyone.",
      `It was requested by ${by} at ${at}. If you did not request this, please ignore this email.`,
    ],
    data: {
      otp_code: code,
      requested_at: at,
      requested_by: by,
      user: { public_metadata: user?.publicMetadata ?? {}, public_metadata_fallback: "" },
    },
  });
}

/** An invitation to an organization (`organization_invitation`), with the link that accepts it. */
export function organizationInvitationEmail(
  store: Store,
  invitation: { email: string; orgId: string; inviterUserId: string | null },
  actionUrl: string,
): EmailMessage {
  const org = store.org(invitation.orgId);
  const inviter = invitation.inviterUserId ? store.user(invitation.inviterUserId) : null;
  const inviterName = inviter ? [inviter.firstName, inviter.lastName].filter(Boolean).join(" ") || inviter.email : "";
  const orgName = org?.name ?? "";
  return email(store, {
    slug: "organization_invitation",
    to_email_address: invitation.email,
    email_address_id: null,
    user_id: null,
    subject: inviterName ? `${inviterName} invited you to join ${orgName}` : `You are invited to join ${orgName}`,
    paragraphs: [
      `${inviterName || "Someone"} has invited you to join ${orgName} on ${store.settings.applicationName}.`,
      `Accept the invitation: ${actionUrl}`,
    ],
    data: { org: { name: orgName }, inviter_name: inviterName, action_url: actionUrl },
  });
}

/** An invitation to the application itself (`invitation`): its link signs up the address. */
export function invitationEmail(store: Store, invitation: { email: string }, actionUrl: string): EmailMessage {
  const app = store.settings.applicationName;
  return email(store, {
    slug: "invitation",
    to_email_address: invitation.email,
    email_address_id: null,
    user_id: null,
    subject: `You are invited to join ${app}`,
    paragraphs: [`You have been invited to join ${app}.`, `Accept the invitation: ${actionUrl}`],
    data: { action_url: actionUrl },
  });
}

/** A text message (`verification_code`): verifying a phone number, and signing in with an SMS code. */
export function verificationCodeSms(
  store: Store,
  to: { phoneNumber: string; phoneNumberId: string | null; userId: string | null },
  code: string,
): SmsMessage {
  return applySmsTemplate(store, {
    object: "sms_message",
    id: newId("sms"),
    slug: "verification_code",
    from_phone_number: FROM_PHONE_NUMBER,
    to_phone_number: to.phoneNumber,
    phone_number_id: to.phoneNumberId,
    user_id: to.userId,
    message: `${code} is your verification code for ${store.settings.applicationName}.`,
    status: "queued",
    data: { otp_code: code },
    delivered_by_clerk: true,
    created_at_ms: Date.now(),
  });
}

/** The code that verifies an organization's domain (`affiliation_code`), sent to an address on it. */
export function affiliationCodeEmail(
  store: Store,
  to: { address: string; orgId: string; domain: string },
  code: string,
): EmailMessage {
  const orgName = store.org(to.orgId)?.name ?? "";
  return email(store, {
    slug: "affiliation_code",
    to_email_address: to.address,
    email_address_id: null,
    user_id: null,
    subject: `${code} is your verification code`,
    paragraphs: [
      `${code} is the code that verifies ${to.domain} for ${orgName} on ${store.settings.applicationName}.`,
      "Do not share this with anyone.",
    ],
    data: { otp_code: code, org: { name: orgName }, domain: to.domain },
  });
}

/** A waitlist entry's confirmation (`waitlist_confirmation`): the address is on the list. */
export function waitlistConfirmationEmail(store: Store, address: string): EmailMessage {
  const app = store.settings.applicationName;
  return email(store, {
    slug: "waitlist_confirmation",
    to_email_address: address,
    email_address_id: null,
    user_id: null,
    subject: `You are on the waitlist for ${app}`,
    paragraphs: [`Thanks for joining the waitlist for ${app}. We will let you know when you can sign up.`],
    data: {},
  });
}

/** A waitlist entry invited (`waitlist_invitation`): its link signs up the address. */
export function waitlistInvitationEmail(store: Store, address: string, actionUrl: string): EmailMessage {
  const app = store.settings.applicationName;
  return email(store, {
    slug: "waitlist_invitation",
    to_email_address: address,
    email_address_id: null,
    user_id: null,
    subject: `You can now sign up for ${app}`,
    paragraphs: [`Your spot on the waitlist for ${app} has come up.`, `Sign up: ${actionUrl}`],
    data: { action_url: actionUrl },
  });
}

/** Which of Clerk's link emails: signing in, signing up, or verifying an address added to a profile. */
export type EmailLinkFlow = "sign_in" | "sign_up" | "email_address";

const LINK_SLUGS: Record<EmailLinkFlow, string> = {
  sign_in: "magic_link_sign_in",
  sign_up: "magic_link_sign_up",
  email_address: "magic_link_user_profile",
};

/**
 * An email link (`magic_link_sign_in`, `magic_link_sign_up`,
 * `magic_link_user_profile`, Clerk's template slugs): `data.magic_link` is the
 * Frontend API's `/v1/verify?token=…`, which an app's tests open.
 */
export function emailLinkEmail(
  store: Store,
  /** The requesting browser's User-Agent, which Clerk names in the email (`requested_by`). */
  userAgent: string | null,
  to: { address: string; emailAddressId: string | null; userId: string | null },
  flow: EmailLinkFlow,
  link: string,
  ttlMinutes: number,
): EmailMessage {
  const at = requestedAt(Date.now());
  const by = requestedBy(userAgent);
  const app = store.settings.applicationName;
  const user = to.userId ? store.user(to.userId) : null;
  const action = { sign_in: `Sign in to ${app}`, sign_up: `Sign up to ${app}`, email_address: "Verify your email" }[
    flow
  ];
  return email(store, {
    slug: LINK_SLUGS[flow],
    to_email_address: to.address,
    email_address_id: to.emailAddressId,
    user_id: to.userId,
    subject: action,
    paragraphs: [
      `${action}: ${link}`,
      `The link expires in ${ttlMinutes} minutes.`,
      `It was requested by ${by} at ${at}. If you did not request this, please ignore this email.`,
    ],
    data: {
      magic_link: link,
      ttl_minutes: ttlMinutes,
      requested_at: at,
      requested_by: by,
      user: { public_metadata: user?.publicMetadata ?? {}, public_metadata_fallback: "" },
    },
  });
}
