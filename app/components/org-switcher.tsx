import { Popover, Separator, Text } from "~/components/ui";
import { Link, useParams, useRouteLoaderData } from "@remix-run/react";
import { useState, type KeyboardEvent } from "react";
import { useHydrated } from "~/hooks/use-hydrated";
import { useSwitcherList } from "~/hooks/use-switcher-list";
import type { loader as orgLayoutLoader } from "~/routes/orgs.$slug";
import { findOrganization, orgPath, roleLabel, type OrgSummary } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { ChevronIcon } from "./icons";

type OrgFace = Pick<OrgSummary, "id" | "name" | "imageUrl">;

/**
 * The organization the page is about: the one the organization pages loaded
 * (already on the page, no request), else the session's active one once the
 * list is in.
 */
function useCurrentOrganization(
  page: OrgFace | null,
  organizations: OrgSummary[] | null,
  activeOrgId: string | null,
): OrgFace | null {
  const { slug } = useParams();
  if (page) return page;
  if (!organizations) return null;
  return (
    (slug ? findOrganization(organizations, slug) : null) ?? organizations.find((o) => o.id === activeOrgId) ?? null
  );
}

function TriggerFace({ current }: { current: OrgFace | null }) {
  return (
    <>
      {current ? <EntityAvatar name={current.name} imageUrl={current.imageUrl} shape="square" size="small" /> : null}
      <span className="org-switcher-name">{current?.name ?? "Organizations"}</span>
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
export function OrgSwitcher({ activeOrgId }: { activeOrgId: string | null }) {
  const hydrated = useHydrated();
  const [open, setOpen] = useState(false);
  const page = useRouteLoaderData<typeof orgLayoutLoader>("routes/orgs.$slug")?.org ?? null;
  const list = useSwitcherList(page?.id ?? null);
  const current = useCurrentOrganization(page, list.organizations, activeOrgId);
  // The visible name first: what people see is what they say to voice control.
  const label = current ? `${current.name}, switch organization` : "Organizations, switch organization";

  if (!hydrated) {
    return (
      <a href="/orgs" className="org-switcher-trigger" aria-label={label} data-testid="org-switcher-link">
        <TriggerFace current={current} />
      </a>
    );
  }

  const others = list.organizations?.filter((o) => o.id !== current?.id) ?? [];
  const currentItem = list.organizations?.find((o) => o.id === current?.id) ?? null;
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
          onPointerEnter={list.request}
          onFocus={list.request}
        >
          <TriggerFace current={current} />
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
