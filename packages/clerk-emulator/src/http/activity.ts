import type { Request } from "express";
import type { SessionActivity } from "../state/store";

/** The browser a request comes from, roughly as Clerk's devices list names it. */
export function activityOf(req: Request): SessionActivity {
  const ua = req.get("user-agent") ?? "";
  const browser =
    /(Firefox|Edg|OPR|Chrome|Chromium|Safari)\/([\d.]+)/.exec(ua.replace("HeadlessChrome", "Chrome")) ?? null;
  const names: Record<string, string> = { Edg: "Edge", OPR: "Opera" };
  const isMobile = /Mobi|Android|iPhone|iPad/.test(ua);
  return {
    browserName: browser ? (names[browser[1] ?? ""] ?? browser[1] ?? null) : null,
    browserVersion: browser?.[2] ?? null,
    deviceType: isMobile ? (/iPad|Tablet/.test(ua) ? "Tablet" : "Mobile") : ua ? "Computer" : null,
    isMobile,
    ipAddress: req.ip ?? null,
  };
}
