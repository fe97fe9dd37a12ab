// Deep imports keep the popover out of the first-load JavaScript (see ~/components/ui).
import * as Popover from "@radix-ui/themes/components/popover";
import { Separator } from "@radix-ui/themes/components/separator";
import { Link } from "@remix-run/react";
import { useState, type KeyboardEvent, type ReactNode } from "react";
import type { useSwitcherList } from "~/hooks/use-switcher-list";
import { orgPath, roleLabel, type MyInvitation, type OrgSummary } from "~/lib/orgs/organizations";
import { AcceptInvitation } from "./accept-invitation";
import { EntityAvatar } from "./entity-avatar";
import { Flex, Text } from "./ui";

// Arrow keys, Home and End move between the popover's links; Tab still works too.
function moveFocus(event: KeyboardEvent<HTMLDivElement>) {
  const keys = ["ArrowDown", "ArrowUp", "Home", "End"];
  if (!keys.includes(event.key)) return;
  const items = [...event.currentTarget.querySelectorAll<HTMLElement>("[data-switcher-item]")];
  if (items.length === 0) return;
  event.preventDefault();
  const index = items.indexOf(document.activeElement as HTMLElement);
  const next =
    event.key === "Home"
      ? 0
      : event.key === "End"
        ? items.length - 1
        : (index + (event.key === "ArrowDown" ? 1 : -1) + items.length) % items.length;
  items[next]?.focus();
}

/**
 * The switcher as a Radix popover (a chunk of its own), whose links navigate
 * client-side. The list arrives from its own route; the panel says while it
 * is loading or if it could not be loaded.
 */
export default function SwitcherPopover({
  label,
  face,
  currentId,
  list,
  autoFocus,
}: {
  autoFocus: boolean;
  label: string;
  face: ReactNode;
  currentId: string | null;
  list: ReturnType<typeof useSwitcherList>;
}) {
  const [open, setOpen] = useState(false);
  const others = list.organizations?.filter((o) => o.id !== currentId) ?? [];
  const currentItem = list.organizations?.find((o) => o.id === currentId) ?? null;
  const close = () => setOpen(false);
  return (
    <Popover.Root
      open={open}
      onOpenChange={(next) => {
        if (next) list.request();
        setOpen(next);
      }}
    >
      <Popover.Trigger>
        <button
          type="button"
          className="org-switcher-trigger"
          aria-label={label}
          data-testid="org-switcher-trigger"
          autoFocus={autoFocus}
          onPointerEnter={list.request}
          onFocus={list.request}
        >
          {face}
        </button>
      </Popover.Trigger>
      <Popover.Content
        align="start"
        size="1"
        className="org-switcher-panel"
        aria-label="Organizations"
        aria-busy={list.status === "loading"}
        onKeyDown={moveFocus}
        data-testid="org-switcher-panel"
      >
        {currentItem ? (
          <>
            <Text as="p" size="1" color="gray" className="org-switcher-heading">
              Current organization
            </Text>
            <OrgItem org={currentItem} current onChoose={close} />
          </>
        ) : null}
        {others.length > 0 ? (
          <>
            <Text as="p" size="1" color="gray" className="org-switcher-heading">
              {currentItem ? "Switch to" : "Your organizations"}
            </Text>
            <ul className="org-switcher-list">
              {others.map((org) => (
                <li key={org.id}>
                  <OrgItem org={org} onChoose={close} />
                </li>
              ))}
            </ul>
          </>
        ) : null}
        <Text as="p" size="1" color="gray" role="status" className="org-switcher-status">
          {list.organizations
            ? null
            : list.status === "failed"
              ? "Your organizations could not be loaded just now. Try again in a moment."
              : "Loading your organizations…"}
        </Text>
        {list.invitations && list.invitations.length > 0 ? (
          <>
            <Text as="p" size="1" color="gray" className="org-switcher-heading" id="switcher-invitations-heading">
              Invitations
            </Text>
            <ul className="org-switcher-list" aria-labelledby="switcher-invitations-heading">
              {list.invitations.map((invitation) => (
                <li key={invitation.id}>
                  <InvitationItem invitation={invitation} onAccepted={close} />
                </li>
              ))}
            </ul>
          </>
        ) : null}
        <Separator size="4" my="2" />
        <Link to="/orgs/new" className="org-switcher-item" data-switcher-item onClick={close}>
          <span aria-hidden="true" className="org-switcher-plus">
            +
          </span>
          Create organization
        </Link>
        <Link to="/orgs" className="org-switcher-item" data-switcher-item onClick={close}>
          All organizations
        </Link>
      </Popover.Content>
    </Popover.Root>
  );
}

function OrgItem({ org, current = false, onChoose }: { org: OrgSummary; current?: boolean; onChoose: () => void }) {
  return (
    <Link
      to={orgPath(org)}
      className="org-switcher-item"
      data-switcher-item
      aria-current={current ? "true" : undefined}
      onClick={onChoose}
    >
      <EntityAvatar name={org.name} imageUrl={org.imageUrl} shape="square" size="small" />
      <span className="org-switcher-item-name">{org.name}</span>
      <Text size="1" color="gray">
        {roleLabel(org.role)}
      </Text>
    </Link>
  );
}

function InvitationItem({ invitation, onAccepted }: { invitation: MyInvitation; onAccepted: () => void }) {
  return (
    <Flex align="center" gap="2" px="2" py="1" data-testid="switcher-invitation">
      <EntityAvatar name={invitation.name} imageUrl={invitation.imageUrl} shape="square" size="small" />
      <Flex direction="column" className="org-switcher-item-name">
        <Text size="2">{invitation.name}</Text>
        <Text size="1" color="gray">
          Invited as {roleLabel(invitation.role).toLowerCase()}
        </Text>
      </Flex>
      <AcceptInvitation invitation={invitation} onAccepted={onAccepted} />
    </Flex>
  );
}
