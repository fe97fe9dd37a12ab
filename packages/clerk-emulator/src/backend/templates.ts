import type { Request } from "express";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { TemplateOverride } from "../state/store";
import {
  parseTemplateType,
  render,
  requireVariables,
  revertTemplate,
  setTemplateOverride,
  templateDefault,
  templateJSON,
  templateOverride,
  templatesOf,
} from "../domain/templates";
import type { BackendContext, Route } from "./context";
import { bodyOf, isTrue } from "./declarations";
import { page } from "./lists";

/** The local part of a sender address: letters, digits, dots, dashes and underscores (Clerk's rule). */
function localPart(value: unknown, param: string): string {
  const text = str(value) ?? "";
  if (!/^[a-zA-Z0-9._-]{1,64}$/.test(text)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "is invalid",
      param,
      `${param} must be the local part of an address.`,
    );
  }
  return text;
}

/** Email and SMS templates: read, changed (the messages sent from then on follow), reverted, previewed, delivery toggled. */
export function registerTemplateRoutes(route: Route, { store }: BackendContext): void {
  const target = (req: Request) => {
    const type = parseTemplateType(req.params.type);
    return { type, template: templateDefault(type, String(req.params.slug)) };
  };

  route("GET", "/v1/templates/:type", { query: ["paginated", "limit", "offset"] }, (req) => {
    const type = parseTemplateType(req.params.type);
    // `paginated`: Clerk's description of version 2025-11-10 gives this list one shape, an array.
    return page(req, templatesOf(type)).map((t) => templateJSON(store, type, t));
  });
  route("GET", "/v1/templates/:type/:slug", { query: [] }, (req) => {
    const { type, template } = target(req);
    return templateJSON(store, type, template);
  });
  route(
    "PUT",
    "/v1/templates/:type/:slug",
    {
      body: {
        name: "kept",
        subject: "kept",
        markup: "kept",
        body: "kept",
        delivered_by_clerk: "kept",
        from_email_name: "kept",
        reply_to_email_name: "kept",
      },
    },
    (req) => {
      const { type, template } = target(req);
      const body = bodyOf(req.body);
      const change: Partial<TemplateOverride> = {};
      if (body.name !== undefined) change.name = str(body.name) ?? template.name;
      if (body.subject !== undefined) change.subject = type === "email" ? str(body.subject) : null;
      if (body.markup !== undefined && body.markup !== null) change.markup = str(body.markup) ?? "";
      if (body.body !== undefined) {
        const text = str(body.body) ?? "";
        requireVariables(template, text);
        change.body = text;
      }
      if (body.delivered_by_clerk !== undefined && body.delivered_by_clerk !== null) {
        change.deliveredByClerk = isTrue(body.delivered_by_clerk);
      }
      if (type === "email" && body.from_email_name !== undefined)
        change.fromEmailName = localPart(body.from_email_name, "from_email_name");
      if (type === "email" && body.reply_to_email_name !== undefined && body.reply_to_email_name !== "") {
        change.replyToEmailName = localPart(body.reply_to_email_name, "reply_to_email_name");
      }
      setTemplateOverride(store, type, template.slug, change);
      return templateJSON(store, type, template);
    },
  );
  route("POST", "/v1/templates/:type/:slug/revert", { body: {} }, (req) => {
    const { type, template } = target(req);
    if (!templateOverride(store, type, template.slug)) {
      throw new ApiError(400, "template_revert_error", "This template is Clerk's default already.");
    }
    revertTemplate(store, type, template.slug);
    return templateJSON(store, type, template);
  });
  route(
    "POST",
    "/v1/templates/:type/:slug/preview",
    {
      body: {
        subject: "kept",
        body: "kept",
        from_email_name: "kept",
        reply_to_email_name: "flag",
      },
    },
    (req) => {
      const { type, template } = target(req);
      const body = bodyOf(req.body);
      const current = templateJSON(store, type, template);
      const sample = {
        app: { name: store.settings.applicationName, url: "", domain_name: "", logo_url: "" },
        otp_code: "424242",
        action_url: "https://example.com/accept",
        inviter_name: "Ada Lovelace",
        org: { name: "Analytical Engines" },
        domain: "example.com",
        requested_at: "",
        requested_by: "",
      };
      const text = str(body.body) ?? current.body;
      requireVariables(template, text);
      const subject = body.subject !== undefined ? str(body.subject) : current.subject;
      const from =
        body.from_email_name !== undefined
          ? localPart(body.from_email_name, "from_email_name")
          : current.from_email_name;
      return {
        subject: subject === null ? null : render(subject, sample),
        body: render(text, sample),
        from_email_address: type === "email" ? `${from}@example.com` : undefined,
      };
    },
  );
  route("POST", "/v1/templates/:type/:slug/toggle_delivery", { body: { delivered_by_clerk: "kept" } }, (req) => {
    const { type, template } = target(req);
    const body = bodyOf(req.body);
    const current = templateOverride(store, type, template.slug)?.deliveredByClerk ?? true;
    const next = body.delivered_by_clerk === undefined ? !current : isTrue(body.delivered_by_clerk);
    setTemplateOverride(store, type, template.slug, { deliveredByClerk: next });
    return templateJSON(store, type, template);
  });
}
