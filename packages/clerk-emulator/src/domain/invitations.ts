import { newId } from "../state/ids";
import { invitationEmail, organizationInvitationEmail } from "./messages";
import { ApiError } from "./errors";
import {
  INVITATION_LIFETIME_MS,
  newTicket,
  type InvitationRecord,
  type OrgRecord,
  type Role,
  type SignInTokenRecord,
  type Store,
  type UserRecord,
} from "../state/store";

/** What Clerk accepts as an email address (the emulator's one check, for sign-ups and invitations). */
export const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export function parseEmail(value: unknown, param = "email_address"): string {
  const email = (typeof value === "string" ? value : "").trim().toLowerCase();
  if (!EMAIL.test(email) || email.length > 320) {
    throw new ApiError(422, "form_param_format_invalid", `${param} must be a valid email address.`, param);
  }
  return email;
}

/**
 * Where an invitation's email links to (`ticketUrl` on the Frontend API), or
 * null when no email is to be sent (the Backend API's `notify: false`).
 */
export type InvitationLink = ((ticket: string) => string) | null;

/** Clerk's refusals of an invitation: the address is a member already, or invited and pending. */
export function refuseReinvitation(store: Store, org: OrgRecord, email: string): void {
  const existingUser = store.userByEmail(email);
  if (existingUser && store.membership(org.id, existingUser.id)) {
    throw new ApiError(
      400,
      "already_a_member_in_organization",
      `${email} is already a member of the organization.`,
      "email_address",
    );
  }
  if (pendingInvitations(store, org.id).some((i) => i.email === email)) {
    throw new ApiError(
      400,
      "organization_invitation_not_unique",
      `${email} has already been invited. Organizations cannot have duplicate pending invitations for an email address.`,
      "email_address",
    );
  }
}

/**
 * Invites an address, with Clerk's refusals: already a member, or already
 * invited and pending. Clerk emails the invitation (`email.created`, slug
 * `organization_invitation`) unless told not to.
 */
export function createInvitation(
  store: Store,
  org: OrgRecord,
  input: {
    email: string;
    role: Role;
    inviterUserId: string | null;
    redirectUrl: string | null;
    expiresInDays?: number;
    link: InvitationLink;
  },
): InvitationRecord {
  refuseReinvitation(store, org, input.email);
  const t = Date.now();
  const invitation: InvitationRecord = {
    id: newId("orginv"),
    orgId: org.id,
    email: input.email,
    role: input.role,
    status: "pending",
    inviterUserId: input.inviterUserId,
    ticket: newTicket(),
    redirectUrl: input.redirectUrl,
    expiresAt: t + (input.expiresInDays ? input.expiresInDays * 86_400_000 : INVITATION_LIFETIME_MS),
    createdAt: t,
    updatedAt: t,
  };
  store.write((state) => state.invitations.push(invitation));
  if (input.link) {
    store.send(organizationInvitationEmail(store, { ...invitation, orgId: org.id }, input.link(invitation.ticket)));
  }
  return invitation;
}

/** Clerk's refusals of an invitation to the application: the address has an account, or a pending invitation. */
export function refuseInstanceReinvitation(store: Store, email: string, ignoreExisting: boolean): void {
  if (store.emailTaken(email)) {
    throw new ApiError(422, "form_identifier_exists", `${email} already has an account.`, "email_address");
  }
  const pending = store.state.invitations.some(
    (i) => i.orgId === null && i.email === email && i.status === "pending" && i.expiresAt > Date.now(),
  );
  // `ignore_existing`: another invitation for the address all the same.
  if (pending && !ignoreExisting) {
    throw new ApiError(400, "duplicate_record", `${email} has already been invited.`, "email_address");
  }
}

/**
 * An invitation to the application (Clerk's `POST /v1/invitations`): its link
 * signs up that address. Emailed (slug `invitation`) unless told not to.
 */
export function createInstanceInvitation(
  store: Store,
  input: {
    email: string;
    redirectUrl: string | null;
    expiresInDays?: number;
    ignoreExisting?: boolean;
    link: InvitationLink;
  },
): InvitationRecord {
  refuseInstanceReinvitation(store, input.email, input.ignoreExisting ?? false);
  const t = Date.now();
  const invitation: InvitationRecord = {
    id: newId("inv"),
    orgId: null,
    email: input.email,
    role: "org:member",
    status: "pending",
    inviterUserId: null,
    ticket: newTicket(),
    redirectUrl: input.redirectUrl,
    expiresAt: t + (input.expiresInDays ? input.expiresInDays * 86_400_000 : INVITATION_LIFETIME_MS),
    createdAt: t,
    updatedAt: t,
  };
  store.write((state) => state.invitations.push(invitation));
  if (input.link) store.send(invitationEmail(store, invitation, input.link(invitation.ticket)));
  return invitation;
}

/**
 * Invitations to organizations addressed to one of the person's verified
 * addresses, by status as Clerk reports it (a pending one past its date is
 * `expired`); with no statuses, all of them.
 */
export function invitationsTo(store: Store, user: UserRecord, statuses: string[] = []): InvitationRecord[] {
  const t = Date.now();
  const statusOf = (i: InvitationRecord) => (i.status === "pending" && i.expiresAt <= t ? "expired" : i.status);
  return store.state.invitations.filter(
    (i) =>
      i.orgId !== null &&
      store.org(i.orgId) &&
      user.emails.some((e) => e.verified && e.email === i.email) &&
      (statuses.length === 0 || statuses.includes(statusOf(i))),
  );
}

export function pendingInvitations(store: Store, orgId: string): InvitationRecord[] {
  const t = Date.now();
  return store.state.invitations.filter((i) => i.orgId === orgId && i.status === "pending" && i.expiresAt > t);
}

/** An invitation whose 30 days are over now (the control API's, for tests of an expired invitation). */
export function expireInvitationNow(store: Store, invitation: InvitationRecord): void {
  store.write(() => {
    invitation.expiresAt = Date.now() - 1;
  });
}

export function revokeInvitation(store: Store, org: OrgRecord, invitationId: string): InvitationRecord {
  const invitation = store.state.invitations.find((i) => i.id === invitationId && i.orgId === org.id);
  if (!invitation) {
    throw new ApiError(404, "organization_invitation_not_found", `No invitation found with id ${invitationId}.`);
  }
  if (invitation.status !== "pending") {
    throw new ApiError(
      404,
      "organization_invitation_not_pending",
      "The organization invitation is not in the 'pending' status.",
    );
  }
  return store.write(() => Object.assign(invitation, { status: "revoked" as const, updatedAt: Date.now() }));
}

export function createSignInToken(store: Store, userId: string, expiresInSeconds: number): SignInTokenRecord {
  const t = Date.now();
  const record: SignInTokenRecord = {
    id: newId("sit"),
    userId,
    ticket: newTicket(),
    status: "pending",
    expiresAt: t + expiresInSeconds * 1000,
    createdAt: t,
    updatedAt: t,
  };
  store.write((state) => state.signInTokens.push(record));
  return record;
}

export function revokeSignInToken(store: Store, id: string): SignInTokenRecord {
  const record = store.state.signInTokens.find((s) => s.id === id);
  if (!record) throw new ApiError(404, "resource_not_found", "Sign-in token not found");
  if (record.status !== "pending") {
    throw new ApiError(
      400,
      "sign_in_token_cannot_be_revoked_code",
      `Sign in token cannot be revoked because its status is ${record.status}. Only pending tokens can be revoked.`,
    );
  }
  return store.write(() => Object.assign(record, { status: "revoked" as const, updatedAt: Date.now() }));
}

export type Ticket =
  { kind: "invitation"; invitation: InvitationRecord } | { kind: "sign_in_token"; record: SignInTokenRecord };

/** What a ticket names, whatever its state; null for a ticket the emulator never issued. */
export function lookUpTicket(store: Store, ticket: string | null): Ticket | null {
  if (!ticket) return null;
  const invitation = store.state.invitations.find((i) => i.ticket === ticket);
  if (invitation) return { kind: "invitation", invitation };
  const record = store.state.signInTokens.find((s) => s.ticket === ticket);
  return record ? { kind: "sign_in_token", record } : null;
}

/**
 * A ticket that can still be used, or Clerk's error for one that cannot. The
 * errors carry no parameter name, so Clerk's components show them on the card
 * rather than against a (hidden) ticket field.
 */
export function usableTicket(store: Store, ticket: string | null): Ticket {
  const found = lookUpTicket(store, ticket);
  if (!found) {
    throw new ApiError(400, "ticket_invalid_code", "This link is not valid. Ask for a new one.");
  }
  const { status, expiresAt } = found.kind === "invitation" ? found.invitation : found.record;
  if (found.kind === "invitation" && status === "revoked") {
    throw new ApiError(
      400,
      "organization_invitation_revoked_code",
      "This invitation has been revoked and cannot be used anymore.",
    );
  }
  if (found.kind === "invitation" && status === "accepted") {
    throw new ApiError(
      400,
      "organization_invitation_already_accepted",
      "This invitation has already been accepted. Sign in instead.",
    );
  }
  if (status !== "pending") {
    throw new ApiError(400, "ticket_invalid_code", "This link has already been used or was revoked.");
  }
  if (expiresAt <= Date.now()) {
    throw new ApiError(400, "ticket_expired_code", "This link has expired. Ask for a new one.");
  }
  return found;
}

/** Uses a ticket for a user: an invitation makes them a member with its role. */
export function redeemTicket(store: Store, ticket: Ticket, userId: string): void {
  const t = Date.now();
  store.write(() => {
    if (ticket.kind === "sign_in_token") {
      ticket.record.status = "accepted";
      ticket.record.updatedAt = t;
    } else {
      const { invitation } = ticket;
      // An invitation to the application only lets its person sign up; one to an organization makes them a member.
      if (invitation.orgId && !store.membership(invitation.orgId, userId)) {
        store.addMembership(invitation.orgId, userId, invitation.role);
      }
      invitation.status = "accepted";
      invitation.updatedAt = t;
    }
  });
}

/** The user a sign-in ticket is for: the token's user, or the account with the invited address. */
export function ticketUser(store: Store, ticket: Ticket): string {
  if (ticket.kind === "sign_in_token") return ticket.record.userId;
  const user = store.userByEmail(ticket.invitation.email);
  if (!user) {
    throw new ApiError(
      400,
      "organization_invitation_identification_not_exist",
      "User not found. If you don't have an account, sign up first to accept this invitation.",
    );
  }
  return user.id;
}

/** The link that redeems a ticket: Clerk's `/v1/tickets/accept` on the Frontend API. */
export function ticketUrl(frontendApiUrl: string, ticket: string): string {
  return `${frontendApiUrl}/v1/tickets/accept?ticket=${encodeURIComponent(ticket)}`;
}

/** Revokes an application invitation: its link no longer lets anyone sign up. Only a pending one can be. */
export function revokeInstanceInvitation(store: Store, id: string): InvitationRecord {
  const invitation = store.state.invitations.find((i) => i.orgId === null && i.id === id);
  if (!invitation) throw new ApiError(404, "resource_not_found", "Invitation not found");
  if (invitation.status !== "pending") {
    throw new ApiError(400, "invitation_not_pending", "Only a pending invitation can be revoked.");
  }
  return store.write(() => Object.assign(invitation, { status: "revoked" as const, updatedAt: Date.now() }));
}
