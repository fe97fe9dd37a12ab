// /transitive-state/organization-switcher/:orgId: the organization the path names.
import { useParams } from "react-router";

export default function OrganizationPage() {
  const { orgId } = useParams();
  return (
    <div>
      <p data-testid="current-org-id">{orgId}</p>
    </div>
  );
}
