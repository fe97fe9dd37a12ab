import { newId } from "../state/ids";
import { createInstanceInvitation, ticketUrl } from "./invitations";
import { waitlistConfirmationEmail, waitlistInvitationEmail } from "./messages";
import { ApiError } from "./errors";
import type { Store, WaitlistEntryRecord } from "../state/store";

/**
 * Clerk's waitlist: an address joins (the Frontend API's `POST /v1/waitlist`,
 * or the Backend API), is invited (an invitation to the application, emailed
 * with the `waitlist_invitation` template) or rejected; it is `completed`
 * once its invitation is accepted, i.e. the person signed up with it.
 */
export function waitlistStatus(store: Store, entry: WaitlistEntryRecord): WaitlistEntryRecord["status"] {
  const invitation = entry.invitationId ? store.state.invitations.find((i) => i.id === entry.invitationId) : null;
  return entry.status === "invited" && invitation?.status === "accepted" ? "completed" : entry.status;
}

export function joinWaitlist(store: Store, email: string, notify: boolean): WaitlistEntryRecord {
  // An address already on the list keeps its entry, as Clerk's join is idempotent for it.
  const existing = store.state.waitlistEntries.find((e) => e.email === email);
  if (existing) return existing;
  // An address that already has an account joins too, as on Clerk (its own waitlist-mode spec joins with
  // one): the entry is only a list; whoever is invited from it and has an account just signs in.
  const t = Date.now();
  const entry: WaitlistEntryRecord = {
    id: newId("wle"),
    email,
    status: "pending",
    invitationId: null,
    createdAt: t,
    updatedAt: t,
  };
  store.write((state) => state.waitlistEntries.push(entry));
  if (notify) store.send(waitlistConfirmationEmail(store, email));
  return entry;
}

export function inviteFromWaitlist(
  store: Store,
  entry: WaitlistEntryRecord,
  frontendApiUrl: string,
  ignoreExisting: boolean,
): void {
  if (entry.status !== "pending" && entry.status !== "rejected") {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      undefined,
      "Only a pending or rejected entry can be invited.",
    );
  }
  const invitation = store.write(() => {
    const made = createInstanceInvitation(store, {
      email: entry.email,
      redirectUrl: null,
      ignoreExisting,
      link: null,
    });
    Object.assign(entry, { status: "invited", invitationId: made.id, updatedAt: Date.now() });
    return made;
  });
  store.send(waitlistInvitationEmail(store, entry.email, ticketUrl(frontendApiUrl, invitation.ticket)));
}

export function rejectFromWaitlist(store: Store, entry: WaitlistEntryRecord): void {
  if (waitlistStatus(store, entry) === "completed") {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      undefined,
      "A completed entry cannot be rejected.",
    );
  }
  const t = Date.now();
  // Its invitation, if one is still pending, no longer lets the address sign up.
  const invitation = store.state.invitations.find((i) => i.id === entry.invitationId && i.status === "pending");
  store.write(() => {
    if (invitation) Object.assign(invitation, { status: "revoked", updatedAt: t });
    Object.assign(entry, { status: "rejected", updatedAt: t });
  });
}

/** Deletes an entry; only a pending one can be (an invited or rejected one is history). */
export function deleteWaitlistEntry(store: Store, entry: WaitlistEntryRecord): void {
  if (entry.status !== "pending") {
    throw new ApiError(
      422,
      "form_param_value_invalid",
      "is invalid",
      undefined,
      "Only a pending entry can be deleted.",
    );
  }
  store.write((state) => {
    state.waitlistEntries = state.waitlistEntries.filter((e) => e !== entry);
  });
}
