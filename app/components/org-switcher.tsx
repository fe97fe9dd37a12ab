import { Popover, Separator, Text } from "@radix-ui/themes";
import { Link, useParams } from "@remix-run/react";
import { useState, type KeyboardEvent } from "react";
import { useHydrated } from "~/hooks/use-hydrated";
import { findOrganization, orgPath, roleLabel, type OrgSummary } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { ChevronIcon } from "./icons";

type OrgSwitcherProps = {
  organizations: OrgSummary[] | null;
  activeOrgId: string | null;
};

/** The organization the page is about: the URL's, else the session's active one. */
function useCurrentOrganization({ organizations, activeOrgId }: OrgSwitcherProps) {
  const { slug } = useParams();
  if (!organizations) return null;
  return (
    (slug ? findOrganization(organizations, slug) : null) ?? organizations.find((o) => o.id === activeOrgId) ?? null
  );
}

function TriggerFace({ current }: { current: OrgSummary | null }) {
  return (
    <>
      {current ? <EntityAvatar name={current.name} imageUrl={current.imageUrl} shape="square" size="small" /> : null}
      <span className="org-switcher-name">{current?.name ?? "Choose an organization"}</span>
      <ChevronIcon />
    </>
  );
}

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
 * Organization switcher. Without JavaScript (and before hydration) the trigger
 * is a link to /orgs, which lists the same choices; with it, a Radix popover
 * whose links navigate client-side.
 */
export function OrgSwitcher(props: OrgSwitcherProps) {
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const current = useCurrentOrganization(props);
  // The visible name first: what people see is what they say to voice control.
  const label = current ? `${current.name}, switch organization` : "Choose an organization";

  if (!hydrated || !props.organizations) {
    return (
      <a href="/orgs" className="org-switcher-trigger" aria-label={label} data-testid="org-switcher-link">
        <TriggerFace current={current} />
      </a>
    );
  }

  const others = props.organizations.filter((o) => o.id !== current?.id);
  const close = () => setOpen(false);
  return (
    <Popover.Root open={open} onOpenChange={setOpen}>
      <Popover.Trigger>
        <button type="button" className="org-switcher-trigger" aria-label={label} data-testid="org-switcher-trigger">
          <TriggerFace current={current} />
        </button>
      </Popover.Trigger>
      <Popover.Content
        align="start"
        size="1"
        className="org-switcher-panel"
        aria-label="Organizations"
        onKeyDown={moveFocus}
        data-testid="org-switcher-panel"
      >
        {current ? (
          <>
            <Text as="p" size="1" color="gray" className="org-switcher-heading">
              Current organization
            </Text>
            <OrgItem org={current} current onChoose={close} />
          </>
        ) : null}
        {others.length > 0 ? (
          <>
            <Text as="p" size="1" color="gray" className="org-switcher-heading">
              {current ? "Switch to" : "Your organizations"}
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
