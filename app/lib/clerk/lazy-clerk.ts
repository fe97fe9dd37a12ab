import type { LoadClerkJsScriptOptions } from "@clerk/shared/loadClerkJsScript";
import { loadClerkJsScript } from "./clerk-js-script.client";
import type { BrowserClerk as Clerk } from "@clerk/clerk-react";

/*
 * clerk-js, loaded when the page needs it rather than at every page's start.
 *
 * On a phone it is the page's heaviest work (hundreds of milliseconds of
 * main thread), and most pages do not need it: the server renders who is
 * signed in and every form has a server path. It is needed by Clerk's own
 * screens (sign-in, profile, organization settings), and by a signed-in
 * page before its session token expires, to keep the session fresh (see
 * `useKeepSessionFresh`).
 *
 * Clerk's React SDK takes a `Clerk` instance instead of loading the script
 * itself. This is that instance: until `loadClerk()` is called its `load`
 * waits; then it loads Clerk's script as the SDK would, and from there on
 * every property is the real Clerk's.
 */

declare global {
  interface Window {
    /**
     * Set by Clerk's script once it has loaded. (Not optional (`?`): @clerk/testing,
     * in the same program for the tests, declares it required, and the modifiers must match.)
     */
    Clerk: Clerk | undefined;
  }
}

let requestLoad: () => void = () => undefined;
const requested = new Promise<void>((resolve) => (requestLoad = resolve));

/** Asks for clerk-js now (idempotent). Until then the SDK reports "loading" and queues what it is asked. */
export function loadClerk(): void {
  requestLoad();
}

let real: Clerk | null = null;

async function load(options: LoadClerkJsScriptOptions): Promise<void> {
  await requested;
  await loadClerkJsScript(options);
  const loaded = window.Clerk;
  if (!loaded) throw new Error("clerk-js did not load");
  await loaded.load(options);
  real = loaded;
}

/**
 * The instance handed to Clerk's provider. Methods are bound to the real
 * Clerk, whose private state they use.
 */
export const lazyClerk = new Proxy({} as Clerk, {
  get(_, property) {
    if (!real) {
      if (property === "load") return load;
      if (property === "loaded") return false;
      return undefined;
    }
    const value: unknown = Reflect.get(real, property, real);
    return typeof value === "function" ? value.bind(real) : value;
  },
  set(_, property, value) {
    if (!real) return false;
    return Reflect.set(real, property, value, real);
  },
  has(_, property) {
    return real ? property in real : property === "load" || property === "loaded";
  },
});
