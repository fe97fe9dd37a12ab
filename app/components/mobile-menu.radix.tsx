// Deep imports keep the dialog out of the first-load JavaScript (see ~/components/ui).
import * as Dialog from "@radix-ui/themes/components/dialog";
import { IconButton } from "@radix-ui/themes/components/icon-button";
import type { ReactNode } from "react";
import { CloseIcon, MenuIcon } from "./icons";

/**
 * The phone menu as a Radix dialog (a chunk of its own): it traps focus,
 * closes on Escape and gives focus back to its button.
 */
export default function MobileMenuDialog({
  open,
  onOpenChange,
  autoFocus,
  children,
}: {
  open: boolean;
  autoFocus: boolean;
  onOpenChange: (open: boolean) => void;
  children: ReactNode;
}) {
  return (
    <Dialog.Root open={open} onOpenChange={onOpenChange}>
      <Dialog.Trigger>
        <IconButton
          variant="ghost"
          color="gray"
          size="3"
          aria-label="Menu"
          data-testid="mobile-menu-trigger"
          autoFocus={autoFocus}
        >
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
        {children}
      </Dialog.Content>
    </Dialog.Root>
  );
}
