import { Link, useLocation } from "@remix-run/react";
import { useEffect, useState, type ReactNode } from "react";
import { useClerkSignOut } from "~/hooks/use-clerk-sign-out";
import { lazyPart } from "~/hooks/use-lazy-part";
import type { Viewer } from "~/lib/clerk/viewer";
import { AccountActions, type AccountActionsProps } from "./account-actions";
import { MenuIcon } from "./icons";
import { MenuDisclosure } from "./nav-menu";
import { ThemeChoices } from "./theme-choices";

type MobileMenuProps = { viewer: Viewer | null } & AccountActionsProps;

const useMobileMenuDialog = lazyPart(() => import("./mobile-menu.radix"));

/**
 * The navigation bar's links and account actions on narrow screens (the bar
 * shows it below 48rem). Without JavaScript a disclosure; with it a Radix
 * dialog (fetched when idle or on first use) that traps focus, closes on
 * Escape and on navigation, and gives focus back to its button.
 */
export function MobileMenu(props: MobileMenuProps) {
  const { module, standIn, autoFocus } = useMobileMenuDialog();
  const [open, setOpen] = useState(false);
  const [disclosureOpen, setDisclosureOpen] = useState(false);
  const { key } = useLocation();
  useEffect(() => setOpen(false), [key]);

  // The disclosure until the dialog's code is in, and while someone has it open.
  if (!module || disclosureOpen) {
    return (
      <MenuDisclosure
        label="Menu"
        face={<MenuIcon />}
        testId="mobile-menu-fallback"
        className="mobile-menu"
        onToggle={setDisclosureOpen}
        standIn={standIn}
      >
        <MenuSections {...props} />
      </MenuDisclosure>
    );
  }

  const MobileMenuDialog = module.default;
  return (
    <div className="mobile-menu">
      <MobileMenuDialog open={open} onOpenChange={setOpen} autoFocus={autoFocus}>
        <MenuSections {...props} />
      </MobileMenuDialog>
    </div>
  );
}

function Section({ title, children }: { title: string; children: ReactNode }) {
  return (
    <section className="mobile-menu-section" aria-label={title}>
      <p className="menu-fallback-heading">{title}</p>
      {children}
    </section>
  );
}

function MenuSections({ viewer, analyticsOptedOut }: MobileMenuProps) {
  const onSignOut = useClerkSignOut();
  return (
    <>
      <div className="mobile-menu-section">
        {viewer ? (
          <Link className="menu-fallback-item" to="/orgs">
            Organizations
          </Link>
        ) : (
          <>
            <Link className="menu-fallback-item" to="/">
              Home
            </Link>
            <Link className="menu-fallback-item" to="/sign-in">
              Sign in
            </Link>
            <Link className="menu-fallback-item" to="/sign-up">
              Sign up
            </Link>
          </>
        )}
      </div>
      <Section title="Theme">
        <ThemeChoices />
      </Section>
      {viewer ? (
        <Section title={viewer.name}>
          <AccountActions analyticsOptedOut={analyticsOptedOut} onSignOut={onSignOut} />
        </Section>
      ) : null}
    </>
  );
}
