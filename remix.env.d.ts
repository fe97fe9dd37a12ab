/// <reference types="@remix-run/dev" />
/// <reference types="@remix-run/node" />

// Loaders' data is typed as single fetch sends it (remix.config.js turns it on): `data()` answers unwrapped.
declare module "@remix-run/node" {
  interface Future {
    v3_singleFetch: true;
  }
}

export {};
