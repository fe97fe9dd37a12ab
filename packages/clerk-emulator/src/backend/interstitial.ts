import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { Route } from "./context";

/**
 * `GET /v1/public/interstitial`: the page Clerk's SDKs showed, before the
 * handshake replaced it, while clerk-js refreshed a session: it loads clerk-js
 * (from the proxy, as the emulator serves it at `<proxy>/npm/@clerk/clerk-js@5/…`,
 * else from the Frontend API the publishable key names) and reloads the page
 * once it has. The markup follows @clerk/backend 0.x's `loadInterstitialFromLocal`
 * (clerk/javascript, packages/backend/src/tokens/interstitial.ts before #2304).
 * Public: no secret key, as in Clerk.
 */

/** A value made safe inside an inline script: JSON, with `<` escaped so that no `</script>` can close it. */
const js = (value: unknown) => JSON.stringify(value).replace(/</g, "\\u003c");

/** The Frontend API host a publishable key names (`pk_live_<base64 of "host$">`). */
function frontendApiOf(publishableKey: string): string | null {
  const match = /^pk_(?:live|test)_([A-Za-z0-9+/=_-]+)$/.exec(publishableKey);
  if (!match) return null;
  const decoded = Buffer.from(match[1]!, "base64").toString("utf8");
  return /^[a-z0-9.-]+(?::\d+)?\$$/i.test(decoded) ? decoded.slice(0, -1) : null;
}

function httpUrl(value: string | null, param: string): string | null {
  if (!value) return null;
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol)) {
    throw new ApiError(400, "form_param_format_invalid", `${param} must be a full URL`, param);
  }
  return value.replace(/\/+$/, "");
}

export function interstitialHtml(input: {
  publishableKey: string;
  frontendApi: string;
  proxyUrl: string | null;
  domain: string | null;
  signInUrl: string | null;
}): string {
  const scriptHost = input.proxyUrl ?? `https://${input.domain ? `clerk.${input.domain}` : input.frontendApi}`;
  const scriptUrl = `${scriptHost}/npm/@clerk/clerk-js@5/dist/clerk.browser.js`;
  return `<!DOCTYPE html>
<html>
<head><meta charset="UTF-8" /><style>@media (prefers-color-scheme: dark) { body { background-color: black; } }</style></head>
<body>
<script>
  ${input.proxyUrl ? `window.__clerk_proxy_url = ${js(input.proxyUrl)};` : ""}
  ${input.domain ? `window.__clerk_domain = ${js(input.domain)};` : ""}
  window.startClerk = async () => {
    try {
      await window.Clerk.load({ isInterstitial: true, signInUrl: ${input.signInUrl === null ? "undefined" : js(input.signInUrl)} });
      if (window.Clerk.loaded) window.location.reload();
    } catch (err) {
      console.error("Clerk: ", err);
    }
  };
  (() => {
    const script = document.createElement("script");
    script.setAttribute("data-clerk-publishable-key", ${js(input.publishableKey)});
    ${input.proxyUrl ? `script.setAttribute("data-clerk-proxy-url", ${js(input.proxyUrl)});` : ""}
    ${input.domain ? `script.setAttribute("data-clerk-domain", ${js(input.domain)});` : ""}
    script.async = true;
    script.src = ${js(scriptUrl)};
    script.crossOrigin = "anonymous";
    script.addEventListener("load", window.startClerk);
    document.body.appendChild(script);
  })();
</script>
</body>
</html>
`;
}

export function registerInterstitialRoute(route: Route): void {
  route(
    "GET",
    "/v1/public/interstitial",
    {
      query: [
        "frontendApi",
        "frontend_api",
        "publishable_key",
        "proxy_url",
        "domain",
        "sign_in_url",
        "use_domain_for_script",
      ],
    },
    (req, res) => {
      const publishableKey = str(req.query.publishable_key) ?? "";
      const frontendApi =
        str(req.query.frontend_api) ??
        str(req.query.frontendApi) ??
        (publishableKey ? frontendApiOf(publishableKey) : null);
      if (!publishableKey || !frontendApi) {
        throw new ApiError(400, "form_param_missing", "publishable_key is missing or invalid", "publishable_key");
      }
      const domain = str(req.query.domain);
      if (domain !== null && !/^[a-z0-9.-]+(?::\d+)?$/i.test(domain)) {
        throw new ApiError(400, "form_param_format_invalid", "domain must be a host name", "domain");
      }
      const html = interstitialHtml({
        publishableKey,
        frontendApi,
        proxyUrl: httpUrl(str(req.query.proxy_url), "proxy_url"),
        // `use_domain_for_script`: the script from the satellite's own Frontend API, as without it in production.
        domain,
        signInUrl: httpUrl(str(req.query.sign_in_url), "sign_in_url"),
      });
      res.status(200).setHeader("Content-Type", "text/html; charset=utf-8");
      res.setHeader("Cache-Control", "no-store");
      res.end(html);
      return undefined;
    },
  );
}
