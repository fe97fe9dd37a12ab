// Deep imports: through the package's index, esbuild would keep the menu in the first-load chunk.
import * as DropdownMenu from "@radix-ui/themes/components/dropdown-menu";
import { IconButton } from "@radix-ui/themes/components/icon-button";
import type { RadixNavMenuProps } from "./nav-menu";

/**
 * The navigation bar's Radix dropdown. A chunk of its own (menus, their
 * scroll area and roving focus): loaded when the browser is idle or a menu is
 * first pointed at or focused, so no page waits for it.
 */
export default function RadixNavMenu({ label, face, heading, testId, round, items, autoFocus }: RadixNavMenuProps) {
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
          autoFocus={autoFocus}
        >
          {face}
        </IconButton>
      </DropdownMenu.Trigger>
      <DropdownMenu.Content align="end">
        <DropdownMenu.Label>{heading}</DropdownMenu.Label>
        {items(DropdownMenu)}
      </DropdownMenu.Content>
    </DropdownMenu.Root>
  );
}
