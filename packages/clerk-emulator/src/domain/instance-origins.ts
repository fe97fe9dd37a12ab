import type { Store } from "../state/store";

/** Origins the instance's own settings allow, beside those the emulator was started with. */
export function instanceOrigins(store: Store): string[] {
  const { settings, satelliteDomains, redirectUrls } = store.state.instance;
  const origins = [...settings.allowedOrigins, ...satelliteDomains.map((d) => `https://${d.name}`)];
  for (const r of redirectUrls) {
    const url = URL.canParse(r.url) ? new URL(r.url) : null;
    if (url && (url.protocol === "https:" || url.protocol === "http:")) origins.push(url.origin);
  }
  return origins;
}
