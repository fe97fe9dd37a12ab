import { Dialog, IconButton } from "~/components/ui";
import { Link, useLocation } from "@remix-run/react";
import { useEffect, useState, type ReactNode } from "react";
import { useHydrated } from "~/hooks/use-hydrated";
import type { Viewer } from "~/lib/clerk/viewer";
import { AccountActions, type AccountActionsProps } from "./account-actions";
import { CloseIcon, MenuIcon } from "./icons";
import { MenuDisclosure } from "./nav-menu";
import { ThemeChoices } from "./theme-choices";

type MobileMenuProps = { viewer: Viewer | null } & AccountActionsProps;

/**
 * The navigation bar's links and account actions on narrow screens (the bar
 * shows it below 48rem). Without JavaScript a disclosure; with it a Radix
 * dialog that traps focus, closes on Escape and on navigation, and gives
 * focus back to its button.
 */
export function MobileMenu(props: MobileMenuProps) {
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const { key } = useLocation();
  useEffect(() => setOpen(false), [key]);

  if (!hydrated) {
    return (
      <MenuDisclosure label="Menu" face={<MenuIcon />} testId="mobile-menu-fallback" className="mobile-menu">
        <MenuSections {...props} />
      </MenuDisclosure>
    );
  }

  return (
    <div className="mobile-menu">
      <Dialog.Root open={open} onOpenChange={setOpen}>
        <Dialog.Trigger>
          <IconButton variant="ghost" color="gray" size="3" aria-label="Menu" data-testid="mobile-menu-trigger">
            <MenuIcon />
          </IconButton>
        </Dialog.Trigger>
        <Dialog.Content className="mobile-menu-sheet" aria-describedby={undefined} data-testid="mobile-menu">
          <div className="mobile-menu-header">
            <Dialog.Title size="4" mb="0">
              Menu
            </Dialog.Title>
            <Dialog.Close>
              <IconButton variant="ghost" color="gray" size="3" aria-label="Close the menu">
                <CloseIcon />
              </IconButton>
            </Dialog.Close>
          </div>
          <MenuSections {...props} />
        </Dialog.Content>
      </Dialog.Root>
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

function MenuSections({ viewer, analyticsOptedOut, onSignOut }: MobileMenuProps) {
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
