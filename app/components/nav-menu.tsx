import { DropdownMenu, IconButton } from "@radix-ui/themes";
import type { ReactNode } from "react";
import { useHydrated } from "~/hooks/use-hydrated";

type NavMenuProps = {
  /** The trigger's accessible name. */
  label: string;
  /** What the trigger shows (an icon, an avatar). */
  face: ReactNode;
  heading: string;
  /** `theme-menu` gives `theme-menu-fallback` and `theme-menu-trigger`. */
  testId: string;
  /** Plain links and real forms: the menu before hydration and without JavaScript. */
  fallback: ReactNode;
  /** The Radix menu's items, once the page has hydrated. */
  children: ReactNode;
  round?: boolean;
};

/** A menu without JavaScript: a disclosure whose panel holds plain links and forms. */
export function MenuDisclosure({
  label,
  face,
  testId,
  className = "",
  children,
}: {
  label: string;
  face: ReactNode;
  testId: string;
  className?: string;
  children: ReactNode;
}) {
  return (
    <details className={`menu-fallback ${className}`.trim()} data-testid={testId}>
      <summary className="menu-fallback-trigger" aria-label={label} title={label}>
        {face}
      </summary>
      <div className="menu-fallback-panel">{children}</div>
    </details>
  );
}

/**
 * A menu in the navigation bar. Without JavaScript (and until hydration) a
 * disclosure whose panel holds the fallback's links and forms; then a Radix
 * dropdown with the same choices.
 */
export function NavMenu({ label, face, heading, testId, fallback, children, round = false }: NavMenuProps) {
  const hydrated = useHydrated();
  if (!hydrated) {
    return (
      <MenuDisclosure label={label} face={face} testId={`${testId}-fallback`}>
        <p className="menu-fallback-heading">{heading}</p>
        {fallback}
      </MenuDisclosure>
    );
  }
  return (
    <DropdownMenu.Root>
      <DropdownMenu.Trigger>
        <IconButton
          variant="ghost"
          color="gray"
          radius={round ? "full" : undefined}
          size="3"
          aria-label={label}
          title={label}
          data-testid={`${testId}-trigger`}
        >
          {face}
        </IconButton>
      </DropdownMenu.Trigger>
      <DropdownMenu.Content align="end">
        <DropdownMenu.Label>{heading}</DropdownMenu.Label>
        {children}
      </DropdownMenu.Content>
    </DropdownMenu.Root>
  );
}
