import { useFetcher, useFetchers, useRevalidator } from "@remix-run/react";
import { useEffect, useRef, useSyncExternalStore } from "react";
import { THEME_ACTION_PATH, isThemePreference, type ResolvedTheme, type ThemePreference } from "~/lib/theme/theme";
import { useRootData } from "./use-root-data";

/** Every theme submission goes through this one fetcher, so any component can see it pending. */
export const THEME_FETCHER_KEY = "theme";

const DARK_QUERY = "(prefers-color-scheme: dark)";

function subscribeToSystemTheme(onChange: () => void) {
  const query = window.matchMedia(DARK_QUERY);
  query.addEventListener("change", onChange);
  return () => query.removeEventListener("change", onChange);
}

/**
 * The OS colour scheme, live. On the server (and while hydrating) it is what
 * the server knew: the client hint, or null when there was none.
 */
export function useSystemTheme(serverHint: ResolvedTheme | null): ResolvedTheme | null {
  return useSyncExternalStore(
    subscribeToSystemTheme,
    () => (window.matchMedia(DARK_QUERY).matches ? "dark" : "light"),
    () => serverHint,
  );
}

/** The preference as the person sees it: a pending choice at once (optimistic), else the server's. */
export function useThemePreference(): ThemePreference {
  const pending = useFetchers()
    .find((f) => f.key === THEME_FETCHER_KEY)
    ?.formData?.get("theme");
  const stored = useRootData()?.theme.preference ?? "system";
  return isThemePreference(pending) ? pending : stored;
}

/** What to paint: the preference, or the OS scheme for "system" (null while it cannot be known yet). */
export function useResolvedTheme(): ResolvedTheme | null {
  const preference = useThemePreference();
  const system = useSystemTheme(useRootData()?.theme.resolved ?? null);
  return preference === "system" ? system : preference;
}

/** Submits a theme choice through the shared fetcher (a form-encoded POST, as the no-JS form sends). */
export function useSetTheme() {
  const fetcher = useFetcher({ key: THEME_FETCHER_KEY });
  return (theme: ThemePreference) =>
    fetcher.submit({ theme }, { method: "post", action: THEME_ACTION_PATH, preventScrollReset: true });
}

const CHANNEL = "teamwork-theme";

/**
 * Other open tabs follow a change: once a submission from this tab has been
 * stored, they are told, and load the root data again (the cookie is the truth).
 */
export function useThemeAcrossTabs() {
  const fetcher = useFetcher({ key: THEME_FETCHER_KEY });
  const { revalidate } = useRevalidator();
  const channel = useRef<BroadcastChannel | null>(null);
  const submitted = useRef(false);

  useEffect(() => {
    if (typeof BroadcastChannel === "undefined") return;
    const ch = new BroadcastChannel(CHANNEL);
    ch.onmessage = () => revalidate();
    channel.current = ch;
    return () => ch.close();
  }, [revalidate]);

  useEffect(() => {
    if (fetcher.state === "submitting") submitted.current = true;
    if (fetcher.state === "idle" && submitted.current) {
      submitted.current = false;
      channel.current?.postMessage("changed");
    }
  }, [fetcher.state]);
}
