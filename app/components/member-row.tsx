import { Text } from "~/components/ui";
import { formatDay } from "~/lib/day";
import type { Member } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { RoleBadge } from "./role-badge";

/** One member in a list: who, how to reach them, their role and when they joined. */
export function MemberRow({ member }: { member: Member }) {
  return (
    <li className="member-row" data-testid="member-row">
      <EntityAvatar name={member.name} imageUrl={member.imageUrl} />
      <div className="member-who">
        <Text as="p" size="2" weight="medium" className="member-name">
          {member.name}
        </Text>
        {member.identifier && member.identifier !== member.name ? (
          <Text as="p" size="1" color="gray" className="member-identifier">
            {member.identifier}
          </Text>
        ) : null}
      </div>
      <RoleBadge role={member.role} />
      <Text size="1" color="gray" className="member-joined">
        <time dateTime={new Date(member.joinedAt).toISOString()}>Joined {formatDay(member.joinedAt)}</time>
      </Text>
    </li>
  );
}
