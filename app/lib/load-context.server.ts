import type { Analytics } from "./analytics.server";

/** What server.ts hands every loader and action (see `getLoadContext` there). */
export type LoadContext = {
  analytics: Analytics | null;
  /** This response's Content-Security-Policy nonce. */
  cspNonce: string;
  /** The client's address (behind a trusted proxy, the forwarded one), for rate limits. */
  clientIp: string;
};

declare module "@remix-run/node" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface AppLoadContext extends LoadContext {}
}
