import { formatDay } from "~/lib/day";
import type { Member } from "~/lib/orgs/organizations";
import { EntityAvatar } from "./entity-avatar";
import { RoleBadge } from "./role-badge";

/**
 * One member in a list: who, how to reach them, their role and when they joined. Plain elements in
 * Radix's type scale (app.css, `.member-row`), not Radix's `Text`: a list renders this row for
 * every member on every view, and each `Text` costs the server its props' extraction (about 10 µs
 * each; three a row).
 */
export function MemberRow({ member }: { member: Member }) {
  return (
    <li className="member-row" data-testid="member-row">
      <EntityAvatar name={member.name} imageUrl={member.imageUrl} />
      <div className="member-who">
        <p className="member-name">{member.name}</p>
        {member.identifier && member.identifier !== member.name ? (
          <p className="member-identifier">{member.identifier}</p>
        ) : null}
      </div>
      <RoleBadge role={member.role} />
      <span className="member-joined">
        <time dateTime={new Date(member.joinedAt).toISOString()}>Joined {formatDay(member.joinedAt)}</time>
      </span>
    </li>
  );
}
