import { Badge } from "~/components/ui";
import { isAdmin, roleLabel, type OrgRole } from "~/lib/orgs/organizations";

/** A role in an organization; admins in the accent colour. */
export function RoleBadge({ role, testId }: { role: OrgRole; testId?: string }) {
  return (
    <Badge variant="soft" color={isAdmin(role) ? "indigo" : "gray"} data-testid={testId}>
      {roleLabel(role)}
    </Badge>
  );
}
