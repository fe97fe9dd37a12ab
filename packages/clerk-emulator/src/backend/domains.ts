import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { Request } from "express";
import { newId } from "../state/ids";
import { deletedJSON } from "../json";
import {
  addRedirectUrl,
  addSatelliteDomain,
  changeSatelliteDomain,
  PRIMARY_DOMAIN_ID,
  PRIMARY_DOMAIN_NAME,
  redirectUrl,
  removeRedirectUrl,
  removeSatelliteDomain,
  satelliteDomain,
  satelliteDomainName,
  type SatelliteDomainChanges,
} from "../domain/domains";
import { ApiError } from "../domain/errors";
import { str } from "../http/routing";
import type { RedirectUrlRecord, SatelliteDomainRecord } from "../state/store";
import type { BackendContext, Route } from "./context";
import { bodyOf, isTrue } from "./declarations";
import { page } from "./lists";

/**
 * The instance's domains (`/v1/domains`: the primary one and satellites),
 * its redirect URLs (`/v1/redirect_urls`) and proxy checks
 * (`/v1/proxy_checks`), kept by domain/domains.ts.
 */

function parseProxyUrl(value: unknown): string | null {
  if (value === undefined || value === null || value === "") return null;
  const text = str(value) ?? "";
  if (!URL.canParse(text) || !/^https?:$/.test(new URL(text).protocol)) {
    throw new ApiError(422, "form_param_format_invalid", "is invalid", "proxy_url", "proxy_url must be a full URL.");
  }
  return text.replace(/\/+$/, "");
}

/** Loopback, private and link-local addresses: where an app's proxy runs beside the emulator. */
function isLocalAddress(address: string): boolean {
  const v4 = address.replace(/^::ffff:/, "");
  if (isIP(v4) === 4) {
    const [a = 0, b = 0] = v4.split(".").map(Number);
    return (
      a === 127 || a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168) || (a === 169 && b === 254)
    );
  }
  const lower = address.toLowerCase();
  return lower === "::1" || lower.startsWith("fc") || lower.startsWith("fd") || lower.startsWith("fe80:");
}

/**
 * Clerk's proxy check: it calls the proxy's `/v1/proxy-health` and expects its
 * own Frontend API to answer through it. The emulator does the same, and so
 * makes a request to a URL it is given: only to loopback and private addresses
 * (every address the host resolves to), never out to the internet.
 */
async function checkProxy(proxyUrl: string, domainId: string, secretKey: string): Promise<boolean> {
  const url = new URL(proxyUrl);
  const host = url.hostname.replace(/^\[|\]$/g, "");
  const addresses = isIP(host) ? [host] : (await lookup(host, { all: true }).catch(() => [])).map((a) => a.address);
  if (addresses.length === 0 || !addresses.every(isLocalAddress)) {
    throw new ApiError(
      422,
      "invalid_proxy_configuration",
      "The emulator checks proxies on loopback and private addresses only.",
      "proxy_url",
      `${url.host} is not a loopback or private address: the emulator makes no request out of the machine or its network.`,
    );
  }
  try {
    const res = await fetch(`${proxyUrl}/v1/proxy-health?domain_id=${encodeURIComponent(domainId)}`, {
      headers: { "Clerk-Proxy-Url": proxyUrl, "Clerk-Secret-Key": secretKey, "X-Forwarded-For": "127.0.0.1" },
      redirect: "manual",
      signal: AbortSignal.timeout(5_000),
    });
    const body = (await res.json().catch(() => null)) as { status?: string } | null;
    return res.status === 200 && body?.status === "healthy";
  } catch {
    return false;
  }
}

export function registerDomainRoutes(route: Route, { store, frontendApiUrl }: BackendContext, secretKey: string): void {
  const satellites = () => store.state.instance.satelliteDomains;

  const primaryJSON = (req: Request) => ({
    object: "domain",
    id: PRIMARY_DOMAIN_ID,
    name: store.state.instance.homeUrl ? new URL(store.state.instance.homeUrl).host : PRIMARY_DOMAIN_NAME,
    is_satellite: false,
    frontend_api_url: `https://clerk.${PRIMARY_DOMAIN_NAME}`,
    accounts_portal_url: null,
    proxy_url: frontendApiUrl(req),
    development_origin: "",
    cname_targets: null,
  });
  const satelliteJSON = (d: SatelliteDomainRecord) => ({
    object: "domain",
    id: d.id,
    name: d.name,
    is_satellite: true,
    frontend_api_url: `https://clerk.${d.name}`,
    accounts_portal_url: null,
    proxy_url: d.proxyUrl,
    development_origin: "",
    cname_targets: null,
  });
  const satelliteOf = (req: Request) => satelliteDomain(store, String(req.params.id));

  route("GET", "/v1/domains", { query: [] }, (req) => {
    const data = [primaryJSON(req), ...satellites().map(satelliteJSON)];
    return { data, total_count: data.length };
  });
  route("POST", "/v1/domains", { body: { name: "kept", is_satellite: "kept", proxy_url: "kept" } }, (req) => {
    const body = bodyOf(req.body);
    if (!isTrue(body.is_satellite)) {
      throw new ApiError(
        422,
        "form_param_value_invalid",
        "is invalid",
        "is_satellite",
        "Only satellite domains can be added.",
      );
    }
    const name = satelliteDomainName(store, str(body.name) ?? "");
    const domain = addSatelliteDomain(store, { name, proxyUrl: parseProxyUrl(body.proxy_url) });
    return satelliteJSON(domain);
  });
  route("PATCH", "/v1/domains/:id", { body: { name: "kept", proxy_url: "kept", is_secondary: "kept" } }, (req) => {
    const domain = satelliteOf(req);
    const body = bodyOf(req.body);
    const changes: SatelliteDomainChanges = {};
    if (body.name !== undefined && body.name !== null)
      changes.name = satelliteDomainName(store, str(body.name) ?? "", domain);
    if (body.proxy_url !== undefined) changes.proxyUrl = parseProxyUrl(body.proxy_url);
    if (body.is_secondary !== undefined && body.is_secondary !== null) changes.isSecondary = isTrue(body.is_secondary);
    return satelliteJSON(changeSatelliteDomain(store, domain, changes));
  });
  route("DELETE", "/v1/domains/:id", { body: {} }, (req) => {
    const domain = satelliteOf(req);
    removeSatelliteDomain(store, domain);
    return deletedJSON("domain", domain.id);
  });

  // Redirect URLs --------------------------------------------------------------
  const redirectJSON = (r: RedirectUrlRecord) => ({
    object: "redirect_url",
    id: r.id,
    url: r.url,
    created_at: r.createdAt,
    updated_at: r.updatedAt,
  });
  const redirectOf = (req: Request) => redirectUrl(store, String(req.params.id));
  route("GET", "/v1/redirect_urls", { query: ["paginated", "limit", "offset"] }, (req) => {
    // `paginated`: Clerk's description of version 2025-11-10 gives this list one shape, an array.
    return page(req, store.state.instance.redirectUrls).map(redirectJSON);
  });
  route("POST", "/v1/redirect_urls", { body: { url: "kept" } }, (req) => {
    const url = (str(req.body?.url) ?? "").trim();
    return redirectJSON(addRedirectUrl(store, url));
  });
  route("GET", "/v1/redirect_urls/:id", { query: [] }, (req) => redirectJSON(redirectOf(req)));
  route("DELETE", "/v1/redirect_urls/:id", { body: {} }, (req) => {
    const found = redirectOf(req);
    removeRedirectUrl(store, found);
    return deletedJSON("redirect_url", found.id);
  });

  // Proxy checks ---------------------------------------------------------------
  route("POST", "/v1/proxy_checks", { body: { domain_id: "kept", proxy_url: "kept" } }, async (req) => {
    const body = bodyOf(req.body);
    const domainId = str(body.domain_id) ?? "";
    const domain = domainId === PRIMARY_DOMAIN_ID ? null : satellites().find((d) => d.id === domainId);
    if (domain === undefined) throw new ApiError(404, "resource_not_found", "Domain not found", "domain_id");
    const proxyUrl = parseProxyUrl(body.proxy_url);
    if (!proxyUrl) throw new ApiError(422, "form_param_missing", "is missing", "proxy_url");
    const successful = await checkProxy(proxyUrl, domainId, secretKey);
    if (!successful) {
      throw new ApiError(
        422,
        "invalid_proxy_configuration",
        "The proxy did not reach this instance's Frontend API.",
        "proxy_url",
        `${proxyUrl}/v1/proxy-health did not answer as this instance's Frontend API.`,
      );
    }
    // A successful check sets the domain's proxy, as Clerk's does.
    if (domain) changeSatelliteDomain(store, domain, { proxyUrl });
    const t = Date.now();
    return {
      object: "proxy_check",
      id: newId("proxychk"),
      domain_id: domainId,
      last_run_at: t,
      proxy_url: proxyUrl,
      successful,
      created_at: t,
      updated_at: t,
    };
  });
}
