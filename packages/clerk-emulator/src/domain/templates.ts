import type { EmailMessage, SmsMessage } from "./messages";
import { ApiError } from "./errors";
import type { Store, TemplateOverride } from "../state/store";

/**
 * Clerk's email and SMS templates for the messages the emulator sends
 * (`/v1/templates/:type…` on the Backend API). A template changed with `PUT`
 * writes the subject and body of the emails sent from then on (its
 * `{{variables}}` filled from the message's `data`), and its sender names;
 * `toggle_delivery` off means Clerk does not deliver it, which the
 * `email.created` (or `sms.created`) webhook says in `delivered_by_clerk`:
 * the app sends it itself. `revert` puts Clerk's default back.
 */
export type TemplateType = "email" | "sms";

type TemplateDefault = {
  name: string;
  slug: string;
  subject: string | null;
  body: string;
  requiredVariables: string[];
  availableVariables: string[];
};

const APP_VARIABLES = ["app.name", "app.url", "app.domain_name", "app.logo_url"];

const EMAIL_TEMPLATES: TemplateDefault[] = [
  {
    name: "Verification code",
    slug: "verification_code",
    subject: "{{otp_code}} is your verification code",
    body: "<p>{{otp_code}} is your verification code for {{app.name}}.</p>",
    requiredVariables: ["otp_code"],
    availableVariables: [...APP_VARIABLES, "otp_code", "requested_at", "requested_by"],
  },
  {
    name: "Invitation",
    slug: "invitation",
    subject: "You are invited to join {{app.name}}",
    body: '<p>You have been invited to join {{app.name}}.</p><p><a href="{{action_url}}">Accept the invitation</a></p>',
    requiredVariables: ["action_url"],
    availableVariables: [...APP_VARIABLES, "action_url"],
  },
  {
    name: "Organization invitation",
    slug: "organization_invitation",
    subject: "{{inviter_name}} invited you to join {{org.name}}",
    body: '<p>{{inviter_name}} has invited you to join {{org.name}}.</p><p><a href="{{action_url}}">Accept the invitation</a></p>',
    requiredVariables: ["action_url"],
    availableVariables: [...APP_VARIABLES, "action_url", "inviter_name", "org.name"],
  },
  {
    name: "Affiliation code",
    slug: "affiliation_code",
    subject: "{{otp_code}} is your verification code",
    body: "<p>{{otp_code}} is the code that verifies {{domain}} for {{org.name}}.</p>",
    requiredVariables: ["otp_code"],
    availableVariables: [...APP_VARIABLES, "otp_code", "org.name", "domain"],
  },
  {
    name: "Waitlist confirmation",
    slug: "waitlist_confirmation",
    subject: "You are on the waitlist for {{app.name}}",
    body: "<p>Thanks for joining the waitlist for {{app.name}}.</p>",
    requiredVariables: [],
    availableVariables: APP_VARIABLES,
  },
  {
    name: "Waitlist invitation",
    slug: "waitlist_invitation",
    subject: "You can now sign up for {{app.name}}",
    body: '<p>Your spot on the waitlist for {{app.name}} has come up.</p><p><a href="{{action_url}}">Sign up</a></p>',
    requiredVariables: ["action_url"],
    availableVariables: [...APP_VARIABLES, "action_url"],
  },
];

const SMS_TEMPLATES: TemplateDefault[] = [
  {
    name: "Verification code",
    slug: "verification_code",
    subject: null,
    body: "{{otp_code}} is your verification code for {{app.name}}.",
    requiredVariables: ["otp_code"],
    availableVariables: [...APP_VARIABLES, "otp_code"],
  },
];

const FROM_EMAIL_NAME = "notifications";

export function parseTemplateType(value: unknown): TemplateType {
  if (value === "email" || value === "sms") return value;
  throw new ApiError(
    422,
    "template_type_unsupported",
    "is invalid",
    "template_type",
    "template_type must be email or sms.",
  );
}

export function templatesOf(type: TemplateType): TemplateDefault[] {
  return type === "email" ? EMAIL_TEMPLATES : SMS_TEMPLATES;
}

export function templateDefault(type: TemplateType, slug: string): TemplateDefault {
  const found = templatesOf(type).find((t) => t.slug === slug);
  if (!found) throw new ApiError(404, "resource_not_found", `No ${type} template ${slug}.`);
  return found;
}

const keyOf = (type: TemplateType, slug: string) => `${type}/${slug}`;

export function templateOverride(store: Store, type: TemplateType, slug: string): TemplateOverride | undefined {
  return store.state.instance.templates[keyOf(type, slug)];
}

export function setTemplateOverride(store: Store, type: TemplateType, slug: string, change: Partial<TemplateOverride>) {
  const key = keyOf(type, slug);
  store.write((state) => {
    state.instance.templates[key] = { ...state.instance.templates[key], ...change, updatedAt: Date.now() };
  });
}

export function revertTemplate(store: Store, type: TemplateType, slug: string): void {
  store.write((state) => {
    delete state.instance.templates[keyOf(type, slug)];
  });
}

/** `{{name}}` and `{{a.b}}` filled from `data`; an unknown variable is left empty. */
export function render(text: string, data: Record<string, unknown>): string {
  return text.replace(/\{\{\s*([\w.]+)\s*\}\}/g, (_, path: string) => {
    let value: unknown = data;
    for (const part of path.split(".")) value = (value as Record<string, unknown> | undefined)?.[part];
    return typeof value === "string" || typeof value === "number" ? String(value) : "";
  });
}

/** Clerk refuses a template body that leaves out a variable its message needs (`required_variable_missing`). */
export function requireVariables(template: TemplateDefault, body: string): void {
  const missing = template.requiredVariables.find(
    (v) => !new RegExp(`\\{\\{\\s*${v.replace(".", "\\.")}\\s*\\}\\}`).test(body),
  );
  if (missing) {
    throw new ApiError(
      422,
      "required_variable_missing",
      "is missing a required variable",
      "body",
      `The template's body must contain {{${missing}}}.`,
    );
  }
}

export function templateJSON(store: Store, type: TemplateType, template: TemplateDefault) {
  const override = templateOverride(store, type, template.slug);
  const position = templatesOf(type).indexOf(template);
  return {
    object: "template",
    id: `tmpl_${type}_${template.slug}`,
    instance_id: "ins_emulator",
    resource_type: override ? "user" : "system",
    template_type: type,
    name: override?.name ?? template.name,
    slug: template.slug,
    position,
    can_revert: Boolean(override),
    can_delete: false,
    can_edit_body: true,
    can_toggle: true,
    subject: override?.subject !== undefined ? override.subject : template.subject,
    markup: override?.markup ?? "",
    body: override?.body ?? template.body,
    available_variables: template.availableVariables,
    required_variables: template.requiredVariables,
    from_email_name: type === "email" ? (override?.fromEmailName ?? FROM_EMAIL_NAME) : "",
    reply_to_email_name: type === "email" ? (override?.replyToEmailName ?? "") : "",
    delivered_by_clerk: override?.deliveredByClerk ?? true,
    enabled: true,
    flagged_as_suspicious: false,
    updated_at: override?.updatedAt ?? 0,
    created_at: 0,
  };
}

/** An email as the instance's template for its slug makes it: subject, body, sender names, delivery. */
export function applyTemplate(store: Store, message: EmailMessage): EmailMessage {
  const override = message.slug ? templateOverride(store, "email", message.slug) : undefined;
  if (!override) return message;
  const data = message.data;
  return {
    ...message,
    ...(override.subject ? { subject: render(override.subject, data) } : {}),
    ...(override.body ? { body: render(override.body, data), body_plain: null } : {}),
    ...(override.fromEmailName ? { from_email_name: override.fromEmailName } : {}),
    ...(override.replyToEmailName ? { reply_to_email_name: override.replyToEmailName } : {}),
    delivered_by_clerk: override.deliveredByClerk ?? true,
  };
}

/** A text message as the instance's template makes it. */
export function applySmsTemplate(store: Store, message: SmsMessage): SmsMessage {
  const override = message.slug ? templateOverride(store, "sms", message.slug) : undefined;
  if (!override) return message;
  return {
    ...message,
    ...(override.body ? { message: render(override.body, message.data) } : {}),
    delivered_by_clerk: override.deliveredByClerk ?? true,
  };
}
