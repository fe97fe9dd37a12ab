// /composed/organization (composed-components): the active organization's general page composed from
// Core 3's composed exports (its profile, leave and delete sections).
import { ActivateFirstOrganization, type ComposedUi, useComposedUi } from "../components/composed";

function GeneralPage({ ui }: { ui: ComposedUi }) {
  const {
    OrganizationProfileProvider,
    OrganizationProfileGeneralPanel,
    OrganizationProfileProfileSection,
    OrganizationProfileLeaveSection,
    OrganizationProfileDeleteSection,
  } = ui;
  return (
    <OrganizationProfileProvider>
      <OrganizationProfileGeneralPanel>
        <OrganizationProfileProfileSection />
        <OrganizationProfileLeaveSection />
        <OrganizationProfileDeleteSection />
      </OrganizationProfileGeneralPanel>
    </OrganizationProfileProvider>
  );
}

export default function ComposedOrganizationPage() {
  const ui = useComposedUi();
  return (
    <>
      <ActivateFirstOrganization />
      {ui && <GeneralPage ui={ui} />}
    </>
  );
}
