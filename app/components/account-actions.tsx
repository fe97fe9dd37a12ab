import { useLocation } from "@remix-run/react";
import { useHydrated } from "~/hooks/use-hydrated";

export const SIGN_OUT_PATH = "/resources/sign-out";
export const ANALYTICS_PATH = "/resources/analytics";

export type AccountActionsProps = {
  /** `undefined` when the app has no analytics: then there is no switch. */
  analyticsOptedOut?: boolean;
};

export function analyticsSwitch(optedOut: boolean | undefined) {
  if (optedOut === undefined) return null;
  return optedOut
    ? { choice: "on", label: "Turn usage analytics on" }
    : { choice: "off", label: "Turn usage analytics off" };
}

/** Profile, the analytics switch and sign-out, as plain links and forms (menus without JavaScript, the phone menu). */
export function AccountActions({
  analyticsOptedOut,
  onSignOut,
}: AccountActionsProps & {
  /** Signs out through Clerk in the browser; without it (or JavaScript), a form ends the session on the server. */
  onSignOut?: () => void;
}) {
  const hydrated = useHydrated();
  const { pathname, search } = useLocation();
  const analytics = analyticsSwitch(analyticsOptedOut);
  return (
    <>
      <a className="menu-fallback-item" href="/user">
        Profile
      </a>
      {analytics ? (
        <form method="post" action={ANALYTICS_PATH}>
          <input type="hidden" name="analytics" value={analytics.choice} />
          <input type="hidden" name="redirectTo" value={pathname + search} />
          <button type="submit" className="menu-fallback-item">
            {analytics.label}
          </button>
        </form>
      ) : null}
      {hydrated && onSignOut ? (
        <button type="button" className="menu-fallback-item" onClick={onSignOut}>
          Sign out
        </button>
      ) : (
        <form method="post" action={SIGN_OUT_PATH}>
          <button type="submit" className="menu-fallback-item">
            Sign out
          </button>
        </form>
      )}
    </>
  );
}
