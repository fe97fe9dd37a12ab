import type * as DropdownMenu from "@radix-ui/themes/components/dropdown-menu";
import { useCallback, useEffect, useState, type ReactNode } from "react";
import { useHydrated } from "~/hooks/use-hydrated";
import { whenIdle } from "~/lib/when-idle";

/** Radix Themes' dropdown parts, handed to a menu's `items` once its chunk has loaded. */
export type MenuParts = typeof DropdownMenu;

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
  /** The Radix menu's items, made from the parts its chunk brings. */
  items: (menu: MenuParts) => ReactNode;
  round?: boolean;
};

export type RadixNavMenuProps = Omit<NavMenuProps, "fallback">;

type RadixNavMenuModule = typeof import("./nav-menu.radix");
// Shared by every menu of the page: the chunk is asked for once.
let radixNavMenu: Promise<RadixNavMenuModule> | null = null;

/** The Radix menu's component once its chunk is in: asked for when the browser is idle, or on `request`. */
function useRadixNavMenu(hydrated: boolean) {
  const [module, setModule] = useState<RadixNavMenuModule | null>(null);
  const request = useCallback(() => {
    radixNavMenu ??= import("./nav-menu.radix").catch((error: unknown) => {
      radixNavMenu = null; // a dropped connection: the next pointing or focusing tries again
      throw error;
    });
    radixNavMenu.then(setModule, () => undefined);
  }, []);
  useEffect(() => (hydrated ? whenIdle(request) : undefined), [hydrated, request]);
  return { Menu: module?.default ?? null, request };
}

/** A menu without JavaScript: a disclosure whose panel holds plain links and forms. */
export function MenuDisclosure({
  label,
  face,
  testId,
  className = "",
  children,
  onToggle,
  onFirstUse,
}: {
  label: string;
  face: ReactNode;
  testId: string;
  className?: string;
  children: ReactNode;
  onToggle?: (open: boolean) => void;
  /** Pointed at, touched or focused: the moment to fetch what replaces it. */
  onFirstUse?: () => void;
}) {
  return (
    <details
      className={`menu-fallback ${className}`.trim()}
      data-testid={testId}
      onToggle={onToggle ? (event) => onToggle(event.currentTarget.open) : undefined}
      onPointerEnter={onFirstUse}
      onFocus={onFirstUse}
    >
      <summary className="menu-fallback-trigger" aria-label={label} title={label}>
        {face}
      </summary>
      <div className="menu-fallback-panel">{children}</div>
    </details>
  );
}

/**
 * A menu in the navigation bar. Without JavaScript (and until its chunk is
 * in) a disclosure whose panel holds the fallback's links and forms; then a
 * Radix dropdown with the same choices. A disclosure someone has opened stays
 * until they close it.
 */
export function NavMenu({ fallback, ...menu }: NavMenuProps) {
  const hydrated = useHydrated();
  const { Menu, request } = useRadixNavMenu(hydrated);
  const [disclosureOpen, setDisclosureOpen] = useState(false);
  if (!Menu || disclosureOpen) {
    return (
      <MenuDisclosure
        label={menu.label}
        face={menu.face}
        testId={`${menu.testId}-fallback`}
        onToggle={setDisclosureOpen}
        onFirstUse={hydrated ? request : undefined}
      >
        <p className="menu-fallback-heading">{menu.heading}</p>
        {fallback}
      </MenuDisclosure>
    );
  }
  return <Menu {...menu} />;
}
