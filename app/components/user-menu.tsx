import { Link, useFetcher, useLocation } from "@remix-run/react";
import { useClerkSignOut } from "~/hooks/use-clerk-sign-out";
import type { Viewer } from "~/lib/clerk/viewer";
import {
  ANALYTICS_PATH,
  AccountActions,
  SIGN_OUT_PATH,
  analyticsSwitch,
  type AccountActionsProps,
} from "./account-actions";
import { EntityAvatar } from "./entity-avatar";
import { NavMenu } from "./nav-menu";

/**
 * Profile, the analytics switch and sign-out. Without JavaScript: links and
 * real forms (sign-out ends the session on the server). With it: a Radix
 * dropdown; sign-out goes through Clerk in the browser once clerk-js is loaded.
 */
export function UserMenu({ viewer, analyticsOptedOut }: { viewer: Viewer } & AccountActionsProps) {
  const onSignOut = useClerkSignOut();
  const { pathname, search } = useLocation();
  const fetcher = useFetcher();
  const analytics = analyticsSwitch(analyticsOptedOut);
  return (
    <NavMenu
      label={`Account menu for ${viewer.name}`}
      face={<EntityAvatar name={viewer.name} imageUrl={viewer.imageUrl} />}
      heading={viewer.name}
      testId="user-menu"
      fallback={<AccountActions analyticsOptedOut={analyticsOptedOut} />}
      round
      items={(Menu) => (
        <>
          <Menu.Item asChild>
            <Link to="/user">Profile</Link>
          </Menu.Item>
          {analytics ? (
            <Menu.Item
              onSelect={() =>
                fetcher.submit(
                  { analytics: analytics.choice, redirectTo: pathname + search },
                  { method: "post", action: ANALYTICS_PATH },
                )
              }
            >
              {analytics.label}
            </Menu.Item>
          ) : null}
          <Menu.Separator />
          <Menu.Item onSelect={onSignOut ?? (() => fetcher.submit(null, { method: "post", action: SIGN_OUT_PATH }))}>
            Sign out
          </Menu.Item>
        </>
      )}
    />
  );
}
