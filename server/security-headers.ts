import { randomBytes } from "node:crypto";
import type { RequestHandler } from "express";

export function createNonce(): string {
  return randomBytes(16).toString("base64");
}

/** The Frontend API host a publishable key names (`pk_live_<base64("clerk.example.com$")>`). */
export function clerkFrontendApiHost(publishableKey: string | undefined): string | null {
  const encoded = publishableKey?.split("_")[2];
  if (!encoded) return null;
  const host = Buffer.from(encoded, "base64").toString("utf8").replace(/\$$/, "");
  return /^[a-z0-9.-]+(:\d+)?$/i.test(host) ? host : null;
}

type PolicyInput = {
  nonce: string;
  /** Clerk's Frontend API origin when the browser talks to it directly; null behind our proxy or the local emulator. */
  clerkOrigin: string | null;
  /** Real Clerk (not the emulator): its avatars and its captcha. */
  realClerk: boolean;
  https: boolean;
  /** Under `npm run dev`: remix dev's origin, whose socket brings the browser its hot updates. */
  devOrigin?: string | null;
};

/**
 * The Content-Security-Policy for every response. Scripts need this request's
 * nonce, and what a nonce'd script loads is trusted too ('strict-dynamic'),
 * which is how clerk-js and the lazily loaded chunks arrive. Analytics go to
 * our own /ingest, so they need no host here.
 */
export function contentSecurityPolicy({ nonce, clerkOrigin, realClerk, https, devOrigin }: PolicyInput): string {
  const clerk = clerkOrigin ? ` ${clerkOrigin}` : "";
  const devSocket = devOrigin ? ` ${devOrigin.replace(/^http/, "ws").replace(/\/$/, "")}` : "";
  const directives = [
    "default-src 'self'",
    `script-src 'nonce-${nonce}' 'strict-dynamic'`,
    // Radix Themes and Clerk set inline styles.
    "style-src 'self' 'unsafe-inline'",
    `img-src 'self' data: blob:${realClerk ? " https://img.clerk.com" : ""}`,
    "font-src 'self'",
    `connect-src 'self'${clerk}${devSocket}`,
    // Clerk's bot protection shows Cloudflare Turnstile in a frame.
    `frame-src ${realClerk ? "https://challenges.cloudflare.com" : "'none'"}`,
    "worker-src 'self' blob:",
    "manifest-src 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
    "base-uri 'none'",
    "object-src 'none'",
  ];
  if (https) directives.push("upgrade-insecure-requests");
  return directives.join("; ");
}

const HSTS = "max-age=63072000; includeSubDomains";

/** Headers every document and API response carries; HSTS only where the site is served over HTTPS. */
export function securityHeaders(https: boolean): Record<string, string> {
  const headers: Record<string, string> = {
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Referrer-Policy": "strict-origin-when-cross-origin",
    "Permissions-Policy":
      "camera=(), microphone=(), geolocation=(), payment=(), usb=(), interest-cohort=(), browsing-topics=()",
    "Cross-Origin-Opener-Policy": "same-origin",
  };
  if (https) headers["Strict-Transport-Security"] = HSTS;
  return headers;
}

/**
 * The build's fingerprinted scripts, stylesheets and fonts. They are never a
 * document, so the document-only headers (CSP, framing, opener, permissions,
 * referrer) do nothing on them: a page's first load fetches some 45 of these,
 * and at about 750 bytes each those headers were some 33 KB on a phone's first
 * load, plus a nonce drawn per file. nosniff is what applies, so it stays.
 */
export const BUILD_SUBRESOURCE = /^\/build\/[^?#]+\.(?:js|css|woff2)$/;

/**
 * Every response gets the security headers and a Content-Security-Policy with
 * a fresh nonce, which Remix renders into its scripts (`res.locals.cspNonce`);
 * the build's subresources only nosniff (and HSTS).
 */
export function securityHeadersFor(policy: {
  clerkOrigin: string | null;
  realClerk: boolean;
  /** Whether the public origin is https (from PUBLIC_ORIGIN); null: judge each request (a trusted proxy's X-Forwarded-Proto). */
  https: boolean | null;
  devOrigin?: string | null;
}): RequestHandler {
  const { https, ...csp } = policy;
  return (req, res, next) => {
    const secure = https ?? req.secure;
    if (BUILD_SUBRESOURCE.test(req.path)) {
      res.setHeader("X-Content-Type-Options", "nosniff");
      if (secure) res.setHeader("Strict-Transport-Security", HSTS);
      return next();
    }
    const nonce = createNonce();
    res.locals.cspNonce = nonce;
    res.set(securityHeaders(secure));
    res.setHeader("Content-Security-Policy", contentSecurityPolicy({ nonce, ...csp, https: secure }));
    next();
  };
}
