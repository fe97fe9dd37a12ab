import { DropdownMenu, IconButton } from "@radix-ui/themes";
import { Link, useFetcher, useLocation } from "@remix-run/react";
import { useHydrated } from "~/hooks/use-hydrated";
import type { Viewer } from "~/lib/clerk/viewer";
import { EntityAvatar } from "./entity-avatar";
import { MenuFallback } from "./menu-fallback";

export const SIGN_OUT_PATH = "/resources/sign-out";
const ANALYTICS_PATH = "/resources/analytics";

function ViewerAvatar({ viewer }: { viewer: Viewer }) {
  return <EntityAvatar name={viewer.name} imageUrl={viewer.imageUrl} />;
}

/**
 * Profile and sign-out. Without JavaScript: a disclosure with a link and a real
 * form that ends the session on the server. With it: a Radix dropdown, and
 * sign-out goes through Clerk in the browser when `onSignOut` is given.
 */
type UserMenuProps = { viewer: Viewer; analyticsOptedOut?: boolean; onSignOut?: () => void };

export function UserMenu({ viewer, analyticsOptedOut, onSignOut }: UserMenuProps) {
  const hydrated = useHydrated();
  const { pathname, search } = useLocation();
  const fetcher = useFetcher();
  const label = `Account menu for ${viewer.name}`;
  const analyticsForm =
    analyticsOptedOut === undefined
      ? null
      : {
          choice: analyticsOptedOut ? "on" : "off",
          label: analyticsOptedOut ? "Turn usage analytics on" : "Turn usage analytics off",
        };

  if (!hydrated) {
    return (
      <MenuFallback
        label={label}
        trigger={<ViewerAvatar viewer={viewer} />}
        heading={viewer.name}
        testId="user-menu-fallback"
      >
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
      </MenuFallback>
    );
  }

  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger>
        <IconButton
          variant="ghost"
          radius="full"
          size="3"
          aria-label={label}
          title={label}
          data-testid="user-menu-trigger"
        >
          <ViewerAvatar viewer={viewer} />
        </IconButton>
      </DropdownMenu.Trigger>
      <DropdownMenu.Content align="end">
        <DropdownMenu.Label>{viewer.name}</DropdownMenu.Label>
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
      </DropdownMenu.Content>
    </DropdownMenu.Root>
  );
}
