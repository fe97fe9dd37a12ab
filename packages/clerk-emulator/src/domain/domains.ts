import { newId } from "../state/ids";
import { ApiError } from "./errors";
import type { RedirectUrlRecord, SatelliteDomainRecord, Store } from "../state/store";

/**
 * The instance's domains (`/v1/domains`: the primary one, which is never
 * stored, and satellites) and its redirect URLs (`/v1/redirect_urls`).
 * Satellites' origins and redirect URLs' origins are origins the handshake may
 * send a browser back to (instance-origins.ts).
 */

export const PRIMARY_DOMAIN_ID = "dmn_emulator";
/** The host the emulator's publishable key names (instance-keys.ts): it never resolves. */
export const PRIMARY_DOMAIN_NAME = "emulator.invalid";

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z]{2,63}$/;

/** A satellite's name as given, lowercased: a domain name no other domain of the instance has (`except`: the one renamed). */
export function satelliteDomainName(store: Store, value: string, except?: SatelliteDomainRecord): string {
  const name = value.trim().toLowerCase();
  if (!DOMAIN.test(name)) {
    throw new ApiError(
      422,
      "form_param_format_invalid",
      "is invalid",
      "name",
      "name must be a domain name, e.g. example.com.",
    );
  }
  const taken = store.state.instance.satelliteDomains.some((d) => d !== except && d.name === name);
  if (name === PRIMARY_DOMAIN_NAME || taken) {
    throw new ApiError(
      422,
      "form_identifier_exists",
      "is taken",
      "name",
      `${name} is already a domain of this instance.`,
    );
  }
  return name;
}

/** A satellite by id; the primary domain's id is Clerk's 400, as no operation on it is allowed here. */
export function satelliteDomain(store: Store, id: string): SatelliteDomainRecord {
  if (id === PRIMARY_DOMAIN_ID) {
    throw new ApiError(
      400,
      "operation_not_allowed_on_primary_domain",
      "This operation is not allowed on the primary domain.",
    );
  }
  const found = store.state.instance.satelliteDomains.find((d) => d.id === id);
  if (!found) throw new ApiError(404, "resource_not_found", "Domain not found");
  return found;
}

/** A new satellite; its name is `satelliteDomainName`'s. */
export function addSatelliteDomain(
  store: Store,
  input: { name: string; proxyUrl: string | null },
): SatelliteDomainRecord {
  const domain: SatelliteDomainRecord = {
    id: newId("dmn"),
    name: input.name,
    proxyUrl: input.proxyUrl,
    isSecondary: false,
    createdAt: Date.now(),
  };
  return store.write((state) => {
    state.instance.satelliteDomains.push(domain);
    return domain;
  });
}

export type SatelliteDomainChanges = Partial<Pick<SatelliteDomainRecord, "name" | "proxyUrl" | "isSecondary">>;

/** The fields given (a new name is `satelliteDomainName`'s); the listeners are told even when none is. */
export function changeSatelliteDomain(
  store: Store,
  domain: SatelliteDomainRecord,
  changes: SatelliteDomainChanges,
): SatelliteDomainRecord {
  return store.write(() => Object.assign(domain, changes));
}

export function removeSatelliteDomain(store: Store, domain: SatelliteDomainRecord): void {
  store.write((state) => {
    state.instance.satelliteDomains = state.instance.satelliteDomains.filter((d) => d !== domain);
  });
}

export function redirectUrl(store: Store, id: string): RedirectUrlRecord {
  const found = store.state.instance.redirectUrls.find((r) => r.id === id);
  if (!found) throw new ApiError(404, "resource_not_found", "Redirect URL not found");
  return found;
}

/**
 * A redirect URL: `https://…` or a custom scheme (`my-app://callback`), as
 * Clerk takes them, plain http for local origins only; each URL once.
 */
export function addRedirectUrl(store: Store, url: string): RedirectUrlRecord {
  const parsed = URL.canParse(url) ? new URL(url) : null;
  const local = parsed?.protocol === "http:" && /^(localhost|127\.0\.0\.1|\[::1\])$/.test(parsed.hostname);
  if (!parsed || (parsed.protocol === "http:" && !local) || !/^[a-z][a-z0-9+.-]*:$/.test(parsed.protocol)) {
    throw new ApiError(
      422,
      "invalid_redirect_url",
      "is invalid",
      "url",
      "url must start with https:// or a custom scheme.",
    );
  }
  const existing = store.state.instance.redirectUrls.find((r) => r.url === url);
  if (existing) throw new ApiError(422, "duplicate_record", "is taken", "url", `${url} is already a redirect URL.`);
  const t = Date.now();
  const record: RedirectUrlRecord = { id: newId("ru"), url, createdAt: t, updatedAt: t };
  return store.write((state) => {
    state.instance.redirectUrls.push(record);
    return record;
  });
}

export function removeRedirectUrl(store: Store, record: RedirectUrlRecord): void {
  store.write((state) => {
    state.instance.redirectUrls = state.instance.redirectUrls.filter((r) => r !== record);
  });
}
