import { newId, nowMs } from "../state/ids";
import { defaultRoleKey } from "./roles";
import { ApiError } from "./errors";
import type { MembershipRequestRecord, OrgRecord, Store } from "../state/store";

/**
 * Requests to join an organization. Clerk makes one when someone with an
 * address on one of the organization's verified domains (enrollment mode
 * "automatic suggestion") asks to join; its managers accept or reject it in
 * OrganizationProfile. The emulator's control API makes them for tests
 * (`POST /_emulator/membership_requests`).
 */
export function createMembershipRequest(store: Store, org: OrgRecord, userId: string): MembershipRequestRecord {
  if (!store.user(userId)) throw new ApiError(404, "resource_not_found", "User not found", "user_id");
  if (store.membership(org.id, userId)) {
    throw new ApiError(400, "already_a_member_in_organization", "Already a member", "user_id");
  }
  const pending = store.state.membershipRequests.find(
    (r) => r.orgId === org.id && r.userId === userId && r.status === "pending",
  );
  if (pending) return pending;
  const t = nowMs();
  const request: MembershipRequestRecord = {
    id: newId("orgmemreq"),
    orgId: org.id,
    userId,
    status: "pending",
    createdAt: t,
    updatedAt: t,
  };
  return store.write((state) => {
    state.membershipRequests.push(request);
    return request;
  });
}

export function membershipRequestsOf(store: Store, org: OrgRecord, status: string | null): MembershipRequestRecord[] {
  return store.state.membershipRequests.filter(
    (r) => r.orgId === org.id && store.user(r.userId) && (!status || r.status === status),
  );
}

function pendingRequest(store: Store, org: OrgRecord, id: string): MembershipRequestRecord {
  const request = store.state.membershipRequests.find((r) => r.id === id && r.orgId === org.id);
  if (!request) throw new ApiError(404, "resource_not_found", "Membership request not found");
  if (request.status !== "pending") {
    throw new ApiError(400, "organization_membership_request_not_pending", "This request is no longer pending.");
  }
  return request;
}

/** Accepted, the person becomes a member with the instance's default role (`org:member`). */
export function acceptMembershipRequest(store: Store, org: OrgRecord, id: string): MembershipRequestRecord {
  const request = pendingRequest(store, org, id);
  return store.write(() => {
    if (!store.membership(org.id, request.userId)) store.addMembership(org.id, request.userId, defaultRoleKey(store));
    request.status = "accepted";
    request.updatedAt = nowMs();
    return request;
  });
}

export function rejectMembershipRequest(store: Store, org: OrgRecord, id: string): MembershipRequestRecord {
  const request = pendingRequest(store, org, id);
  return store.write(() => {
    request.status = "rejected";
    request.updatedAt = nowMs();
    return request;
  });
}
