import { Button } from "~/components/ui";
import { Link, NavLink } from "@remix-run/react";
import type { Viewer } from "~/lib/clerk/viewer";
import { MobileMenu } from "./mobile-menu";
import { OrgSwitcher } from "./org-switcher";
import { ThemeMenu } from "./theme-menu";
import { UserMenu } from "./user-menu";

type NavBarProps = {
  viewer: Viewer | null;
  activeOrgId: string | null;
  /** `undefined` when the app has no analytics: then the menu offers no switch. */
  analyticsOptedOut?: boolean;
};

/** The sticky top bar; its height is `--nav-height` (4rem) in app.css. */
export function NavBar({ viewer, activeOrgId, analyticsOptedOut }: NavBarProps) {
  return (
    <header className="nav-bar">
      <a href="#main" className="skip-link">
        Skip to content
      </a>
      <nav aria-label="Main" className="nav-inner">
        <Link to="/" className="brand" aria-label="Teamwork, home">
          <span className="brand-mark" data-initials="T" aria-hidden="true" />
          <span className="brand-name">Teamwork</span>
        </Link>
        {viewer ? <OrgSwitcher key={viewer.id} activeOrgId={activeOrgId} /> : null}
        <ul className="nav-links">
          {viewer ? (
            <>
              <li>
                <NavLink to="/orgs" end className="nav-link">
                  Organizations
                </NavLink>
              </li>
              <li>
                <NavLink to="/user" className="nav-link">
                  Profile
                </NavLink>
              </li>
            </>
          ) : (
            <li>
              <NavLink to="/" end className="nav-link">
                Home
              </NavLink>
            </li>
          )}
        </ul>
        <div className="nav-actions">
          <ThemeMenu />
          {viewer ? (
            <UserMenu viewer={viewer} analyticsOptedOut={analyticsOptedOut} />
          ) : (
            <>
              <Button asChild variant="ghost" color="gray" size="2">
                <Link to="/sign-in">Sign in</Link>
              </Button>
              <Button asChild size="2">
                <Link to="/sign-up">Sign up</Link>
              </Button>
            </>
          )}
        </div>
        <MobileMenu viewer={viewer} analyticsOptedOut={analyticsOptedOut} />
      </nav>
    </header>
  );
}
