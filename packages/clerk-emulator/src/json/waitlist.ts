import { ticketUrl } from "../domain/invitations";
import { waitlistStatus } from "../domain/waitlist";
import type { Store, WaitlistEntryRecord } from "../state/store";
import { instanceInvitationJSON } from "./organizations";

/** A waitlist entry, with its invitation's ticket link when the Frontend API's URL is known. */
export function waitlistEntryJSON(store: Store, entry: WaitlistEntryRecord, frontendApiUrl: string | null) {
  const invitation = entry.invitationId ? store.state.invitations.find((i) => i.id === entry.invitationId) : null;
  return {
    object: "waitlist_entry",
    id: entry.id,
    email_address: entry.email,
    status: waitlistStatus(store, entry),
    is_locked: false,
    created_at: entry.createdAt,
    updated_at: entry.updatedAt,
    invitation: invitation
      ? instanceInvitationJSON(invitation, frontendApiUrl === null ? "" : ticketUrl(frontendApiUrl, invitation.ticket))
      : null,
  };
}
