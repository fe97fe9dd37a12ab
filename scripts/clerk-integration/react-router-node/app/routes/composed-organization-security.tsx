// /composed/organization-security (composed-components): the active organization's security page (SSO)
// from Core 3's composed exports; the panel has no sections to compose.
import { ActivateFirstOrganization, type ComposedUi, useComposedUi } from "../components/composed";

function SecurityPage({ ui }: { ui: ComposedUi }) {
  const { OrganizationProfileProvider, OrganizationProfileSecurityPanel } = ui;
  return (
    <OrganizationProfileProvider>
      <OrganizationProfileSecurityPanel />
    </OrganizationProfileProvider>
  );
}

export default function ComposedOrganizationSecurityPage() {
  const ui = useComposedUi();
  return (
    <>
      <ActivateFirstOrganization />
      {ui && <SecurityPage ui={ui} />}
    </>
  );
}
