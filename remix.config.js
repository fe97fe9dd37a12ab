/** @type {import('@remix-run/dev').AppConfig} */
export default {
  ignoredRouteFiles: ["**/.*", "**/*.test.{ts,tsx}"],
  serverModuleFormat: "esm",
  serverPlatform: "node",
  future: {
    v3_fetcherPersist: true,
    v3_relativeSplatPath: true,
    v3_throwAbortReason: true,
    v3_singleFetch: true,
    // Off: measured cheaper for this app's ~16 routes (see docs/performance.md, "Lazy route
    // discovery"). Each document then carries no partial manifest (HTML ~0.4 KB
    // gzip smaller); the full one is a cached 1 KB script; and no /__manifest
    // request follows each page, nor the re-render that patches the routes in.
    v3_lazyRouteDiscovery: false,
    // v3_routeConfig is Vite-only; this project uses the classic compiler.
  },
};
