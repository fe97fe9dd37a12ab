import { DropdownMenu } from "@radix-ui/themes";
import { Link, useFetcher, useLocation } from "@remix-run/react";
import type { Viewer } from "~/lib/clerk/viewer";
import { EntityAvatar } from "./entity-avatar";
import { NavMenu } from "./nav-menu";

export const SIGN_OUT_PATH = "/resources/sign-out";
const ANALYTICS_PATH = "/resources/analytics";

/**
 * Profile and sign-out. Without JavaScript: a disclosure with a link and a real
 * form that ends the session on the server. With it: a Radix dropdown, and
 * sign-out goes through Clerk in the browser when `onSignOut` is given.
 */
type UserMenuProps = { viewer: Viewer; analyticsOptedOut?: boolean; onSignOut?: () => void };

export function UserMenu({ viewer, analyticsOptedOut, onSignOut }: UserMenuProps) {
  const { pathname, search } = useLocation();
  const fetcher = useFetcher();
  const analyticsForm =
    analyticsOptedOut === undefined
      ? null
      : {
          choice: analyticsOptedOut ? "on" : "off",
          label: analyticsOptedOut ? "Turn usage analytics on" : "Turn usage analytics off",
        };

  const fallback = (
    <>
      <a className="menu-fallback-item" href="/user">
        Profile
      </a>
      {analyticsForm ? (
        <form method="post" action={ANALYTICS_PATH}>
          <input type="hidden" name="analytics" value={analyticsForm.choice} />
          <input type="hidden" name="redirectTo" value={pathname + search} />
          <button type="submit" className="menu-fallback-item">
            {analyticsForm.label}
          </button>
        </form>
      ) : null}
      <form method="post" action={SIGN_OUT_PATH}>
        <button type="submit" className="menu-fallback-item">
          Sign out
        </button>
      </form>
    </>
  );

  return (
    <NavMenu
      label={`Account menu for ${viewer.name}`}
      face={<EntityAvatar name={viewer.name} imageUrl={viewer.imageUrl} />}
      heading={viewer.name}
      testId="user-menu"
      fallback={fallback}
      round
    >
      <DropdownMenu.Item asChild>
        <Link to="/user">Profile</Link>
      </DropdownMenu.Item>
      {analyticsForm ? (
        <DropdownMenu.Item
          onSelect={() =>
            fetcher.submit(
              { analytics: analyticsForm.choice, redirectTo: pathname + search },
              { method: "post", action: ANALYTICS_PATH },
            )
          }
        >
          {analyticsForm.label}
        </DropdownMenu.Item>
      ) : null}
      <DropdownMenu.Separator />
      <DropdownMenu.Item
        onSelect={onSignOut ?? (() => fetcher.submit(null, { method: "post", action: SIGN_OUT_PATH }))}
      >
        Sign out
      </DropdownMenu.Item>
    </NavMenu>
  );
}
