import type * as DropdownMenu from "@radix-ui/themes/components/dropdown-menu";
import { useState, type ReactNode } from "react";
import { lazyPart } from "~/hooks/use-lazy-part";

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

export type RadixNavMenuProps = Omit<NavMenuProps, "fallback"> & { autoFocus: boolean };

const useRadixNavMenu = lazyPart(() => import("./nav-menu.radix"));

/** A menu without JavaScript: a disclosure whose panel holds plain links and forms. */
export function MenuDisclosure({
  label,
  face,
  testId,
  className = "",
  children,
  onToggle,
  standIn,
}: {
  label: string;
  face: ReactNode;
  testId: string;
  className?: string;
  children: ReactNode;
  onToggle?: (open: boolean) => void;
  /** Handlers of a stand-in for a lazily loaded part (see `lazyPart`). */
  standIn?: ReturnType<ReturnType<typeof lazyPart>>["standIn"];
}) {
  return (
    <details
      className={`menu-fallback ${className}`.trim()}
      data-testid={testId}
      onToggle={onToggle ? (event) => onToggle(event.currentTarget.open) : undefined}
      {...standIn}
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
  const { module, standIn, autoFocus } = useRadixNavMenu();
  const Menu = module?.default;
  const [disclosureOpen, setDisclosureOpen] = useState(false);
  if (!Menu || disclosureOpen) {
    return (
      <MenuDisclosure
        label={menu.label}
        face={menu.face}
        testId={`${menu.testId}-fallback`}
        onToggle={setDisclosureOpen}
        standIn={standIn}
      >
        <p className="menu-fallback-heading">{menu.heading}</p>
        {fallback}
      </MenuDisclosure>
    );
  }
  return <Menu {...menu} autoFocus={autoFocus} />;
}
