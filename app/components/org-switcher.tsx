import { useLocation, useParams, useRouteLoaderData } from "@remix-run/react";
import { lazyPart } from "~/hooks/use-lazy-part";
import { useSwitcherList } from "~/hooks/use-switcher-list";
import type { loader as orgLayoutLoader } from "~/routes/orgs.$slug";
import { findOrganization, leftOrganization, type OrgSummary } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { ChevronIcon } from "./icons";

type OrgFace = Pick<OrgSummary, "id" | "name" | "imageUrl">;

const useSwitcherPopover = lazyPart(() => import("./org-switcher.radix"));

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

/**
 * Organization switcher. Without JavaScript (and until the popover's code is
 * in) the trigger is a link to /orgs, which lists the same choices; then a
 * Radix popover whose links navigate client-side.
 */
export function OrgSwitcher({ activeOrgId }: { activeOrgId: string | null }) {
  const { module, standIn, autoFocus } = useSwitcherPopover();
  const page = useRouteLoaderData<typeof orgLayoutLoader>("routes/orgs.$slug")?.org ?? null;
  const gone = leftOrganization(new URLSearchParams(useLocation().search));
  const list = useSwitcherList(page?.id ?? null, gone);
  const current = useCurrentOrganization(page, list.organizations, activeOrgId);
  // The visible name first: what people see is what they say to voice control.
  const label = current ? `${current.name}, switch organization` : "Organizations, switch organization";

  if (!module) {
    return (
      <a href="/orgs" className="org-switcher-trigger" aria-label={label} data-testid="org-switcher-link" {...standIn}>
        <TriggerFace current={current} />
      </a>
    );
  }
  const SwitcherPopover = module.default;
  return (
    <SwitcherPopover
      label={label}
      face={<TriggerFace current={current} />}
      currentId={current?.id ?? null}
      list={list}
      autoFocus={autoFocus}
    />
  );
}
