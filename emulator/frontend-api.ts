import express, { type Request, type Response, type Router } from "express";
import { environmentJSON, SIGN_IN_URL, SIGN_UP_URL } from "./environment";
import type { Faults } from "./faults";
import { newId } from "./ids";
import {
  createInvitation,
  EMAIL,
  lookUpTicket,
  parseEmail,
  pendingInvitations,
  redeemTicket,
  revokeInvitation,
  ticketUser,
  usableTicket,
  type Ticket,
} from "./invitations";
import { changeRole, membershipOf, parseRole, removeMember, requireAdmin } from "./memberships";
import {
  clientJSON,
  fullName,
  membershipJSON,
  organizationJSON,
  invitationJSON,
  sessionJSON,
  signInJSON,
  signUpJSON,
  userJSON,
} from "./json";
import { ApiError, createRegistrar, notImplemented, paginate, str } from "./routing";
import {
  hashPassword,
  verifyPassword,
  type ClientRecord,
  type SessionRecord,
  type SignUpRecord,
  type Store,
} from "./store";
import { sessionClaims, signJwt, type SigningKey } from "./tokens";
import { createOrganizationFor, validateOrganizationInput } from "./organizations";

/** Sign-up and sign-in email codes: this one always works, as in Clerk's test mode. */
export const TEST_EMAIL_CODE = "424242";

export type FrontendApiOptions = {
  store: Store;
  key: SigningKey;
  faults: Faults;
  /** Where the emulator is mounted on the app's origin, e.g. "/__clerk". */
  mountPath: string;
  issuer: string;
  tokenTtlSeconds: number;
  sessionLifetimeMs: number;
  applicationName: string;
};

const CLIENT_COOKIE = "__client";

function readCookie(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? "").split(";")) {
    const [k, ...v] = part.trim().split("=");
    if (k === name) return decodeURIComponent(v.join("="));
  }
  return null;
}

export function createFrontendApi(options: FrontendApiOptions): Router {
  const { store, key, faults, mountPath } = options;
  const router = express.Router();
  router.use(express.urlencoded({ extended: false, limit: "64kb" }));
  router.use(express.json({ limit: "64kb" }));
  const route = createRegistrar(router, "fapi", faults);

  const mintToken = (req: Request, session: SessionRecord, orgId?: string | null) => {
    const user = store.user(session.userId);
    const activeOrgId = orgId === undefined ? session.lastActiveOrganizationId : orgId;
    const org = activeOrgId ? store.org(activeOrgId) : null;
    const membership = org && user ? store.membership(org.id, user.id) : null;
    return signJwt(
      key,
      sessionClaims({
        issuer: options.issuer,
        sessionId: session.id,
        userId: session.userId,
        name: user ? fullName(user) : null,
        imageUrl: null,
        org: org && membership ? { id: org.id, slug: org.slug, role: membership.role } : null,
        ttlSeconds: options.tokenTtlSeconds,
        azp: req.get("origin") ?? undefined,
      }),
    );
  };

  const clientCookieOptions = (req: Request) =>
    `Path=${mountPath}; HttpOnly; SameSite=Lax; Max-Age=31536000${req.secure ? "; Secure" : ""}`;

  /** `__client_uat` tells the app's server whether this browser has a signed-in client (0 = no). */
  const setClientCookies = (req: Request, res: Response, client: ClientRecord | null) => {
    const signedIn = client ? store.activeSessions(client).length > 0 : false;
    const uat = signedIn && client ? Math.floor(client.updatedAt / 1000) : 0;
    const secure = req.secure ? "; Secure" : "";
    res.append("Set-Cookie", `__client_uat=${uat}; Path=/; SameSite=Lax; Max-Age=31536000${secure}`);
    if (client) res.append("Set-Cookie", `${CLIENT_COOKIE}=${client.id}; ${clientCookieOptions(req)}`);
    else res.append("Set-Cookie", `${CLIENT_COOKIE}=; Path=${mountPath}; HttpOnly; SameSite=Lax; Max-Age=0`);
  };

  const currentClient = (req: Request): ClientRecord | null => {
    const id = readCookie(req, CLIENT_COOKIE);
    return id ? store.client(id) : null;
  };

  const ensureClient = (req: Request, res: Response): ClientRecord => {
    const existing = currentClient(req);
    if (existing) return existing;
    const client = store.createClient();
    res.append("Set-Cookie", `${CLIENT_COOKIE}=${client.id}; ${clientCookieOptions(req)}`);
    return client;
  };

  /** Clerk's test helpers add a testing token to every Frontend API call; a valid one sets `captcha_bypass`. */
  const carriesTestingToken = (req: Request) => {
    const token = str(req.query.__clerk_testing_token);
    const expiresAt = token ? store.testingTokens.get(token) : undefined;
    return expiresAt !== undefined && expiresAt > Date.now();
  };

  const clientPayload = (req: Request, client: ClientRecord | null) =>
    client ? clientJSON(store, client, (s) => mintToken(req, s), carriesTestingToken(req)) : null;

  /** `{response, client}`: clerk-js updates its client from every non-GET answer. */
  const envelope = (req: Request, res: Response, client: ClientRecord | null, response: unknown) => {
    if (req.method !== "GET") setClientCookies(req, res, client);
    return { response, client: clientPayload(req, client) };
  };

  const sessionOfClient = (client: ClientRecord | null, id: string | undefined): SessionRecord => {
    const session = id ? store.session(id) : null;
    if (!client || !session || session.clientId !== client.id) {
      throw new ApiError(404, "resource_not_found", "Session not found");
    }
    return session;
  };

  const activeSession = (req: Request): SessionRecord => {
    const client = currentClient(req);
    if (!client) throw new ApiError(401, "signed_out", "You are signed out");
    const wanted = str(req.query._clerk_session_id) ?? client.lastActiveSessionId;
    const session = store.activeSessions(client).find((s) => s.id === wanted);
    if (!session) throw new ApiError(401, "signed_out", "You are signed out");
    return session;
  };

  const finishSignIn = (client: ClientRecord, userId: string) => {
    // Single-session mode: a new sign-in replaces any earlier session of this client.
    for (const s of store.activeSessions(client)) store.endSession(s, "removed");
    return store.createSession(client, userId, options.sessionLifetimeMs);
  };

  // Environment and client ----------------------------------------------------
  route("GET", "/v1/environment", () => environmentJSON(options.applicationName, store.settings));
  route("PATCH", "/v1/environment", () => environmentJSON(options.applicationName, store.settings));

  route("GET", "/v1/client", (req) => {
    const client = currentClient(req);
    return { response: clientPayload(req, client), client: null };
  });

  const createClient = (req: Request, res: Response) => {
    const client = ensureClient(req, res);
    return envelope(req, res, client, clientPayload(req, client));
  };
  route("POST", "/v1/client", createClient);
  route("PUT", "/v1/client", createClient);

  route("DELETE", "/v1/client", (req, res) => {
    const client = currentClient(req);
    if (client) {
      for (const s of store.activeSessions(client)) store.endSession(s, "ended");
      store.state.clients = store.state.clients.filter((c) => c !== client);
      store.changed();
    }
    setClientCookies(req, res, null);
    return { response: null, client: null };
  });

  route("DELETE", "/v1/client/sessions", (req, res) => {
    const client = ensureClient(req, res);
    for (const s of store.activeSessions(client)) store.endSession(s, "removed");
    return envelope(req, res, client, clientPayload(req, client));
  });

  // Sign-in -------------------------------------------------------------------
  const attemptPassword = (client: ClientRecord, password: string | null) => {
    const signIn = client.signIn;
    const user = signIn?.userId ? store.user(signIn.userId) : null;
    if (!signIn || !user)
      throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
    if (!password || !verifyPassword(password, user.passwordHash)) {
      signIn.firstFactorStrategy = "password";
      signIn.firstFactorStatus = "failed";
      throw new ApiError(
        422,
        "form_password_incorrect",
        "Password is incorrect. Try again, or use another method.",
        "password",
      );
    }
    const session = finishSignIn(client, user.id);
    signIn.status = "complete";
    signIn.firstFactorStrategy = "password";
    signIn.firstFactorStatus = "verified";
    signIn.createdSessionId = session.id;
  };

  route("POST", "/v1/client/sign_ins", (req, res) => {
    const client = ensureClient(req, res);
    const identifier = str(req.body?.identifier)?.trim() ?? null;
    const now = Date.now();
    client.signIn = {
      id: newId("sia"),
      identifier,
      userId: null,
      status: "needs_identifier",
      createdSessionId: null,
      firstFactorStrategy: null,
      firstFactorStatus: null,
      createdAt: now,
    };
    if (str(req.body?.strategy) === "ticket") {
      // An invitation or sign-in link: the ticket alone signs its user in.
      const ticket = usableTicket(store, str(req.body?.ticket));
      const userId = ticketUser(store, ticket);
      redeemTicket(store, ticket, userId);
      const session = finishSignIn(client, userId);
      Object.assign(client.signIn, {
        identifier: store.user(userId)?.email ?? null,
        userId,
        status: "complete",
        firstFactorStrategy: "ticket",
        firstFactorStatus: "verified",
        createdSessionId: session.id,
      });
    } else if (identifier) {
      const user = store.userByEmail(identifier);
      if (!user) throw new ApiError(422, "form_identifier_not_found", "Couldn't find your account.", "identifier");
      client.signIn.userId = user.id;
      client.signIn.status = "needs_first_factor";
      if (str(req.body?.password) !== null || str(req.body?.strategy) === "password") {
        attemptPassword(client, str(req.body?.password));
      }
    }
    client.updatedAt = now;
    store.changed();
    return envelope(req, res, client, signInJSON(store, client.signIn));
  });

  const currentSignIn = (req: Request, res: Response) => {
    const client = ensureClient(req, res);
    if (!client.signIn || client.signIn.id !== req.params.id) {
      throw new ApiError(404, "resource_not_found", "Sign-in not found");
    }
    return { client, signIn: client.signIn };
  };

  route("GET", "/v1/client/sign_ins/:id", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/prepare_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    signIn.firstFactorStrategy = str(req.body?.strategy) ?? "email_code";
    signIn.firstFactorStatus = "unverified";
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  route("POST", "/v1/client/sign_ins/:id/attempt_first_factor", (req, res) => {
    const { client, signIn } = currentSignIn(req, res);
    const strategy = str(req.body?.strategy);
    if (strategy === "password") {
      attemptPassword(client, str(req.body?.password));
    } else if (strategy === "email_code") {
      if (str(req.body?.code) !== TEST_EMAIL_CODE || !signIn.userId) {
        throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
      }
      const session = finishSignIn(client, signIn.userId);
      signIn.status = "complete";
      signIn.firstFactorStatus = "verified";
      signIn.createdSessionId = session.id;
    } else {
      throw new ApiError(422, "strategy_for_user_invalid", "That sign-in method is not available.", "strategy");
    }
    store.changed();
    return envelope(req, res, client, signInJSON(store, signIn));
  });

  // Sign-up -------------------------------------------------------------------
  /** Only an invitation's ticket can sign someone up; a sign-in token's cannot. */
  const invitationTicket = (value: string | null): Extract<Ticket, { kind: "invitation" }> => {
    const ticket = usableTicket(store, value);
    if (ticket.kind !== "invitation") {
      throw new ApiError(400, "ticket_invalid_code", "This link signs in an existing account; it cannot sign up.");
    }
    return ticket;
  };

  const applySignUpFields = (client: ClientRecord, body: Record<string, unknown>) => {
    const signUp = client.signUp;
    if (!signUp) throw new ApiError(404, "resource_not_found", "Sign-up not found");
    if (str(body.strategy) === "ticket" && str(body.ticket) && !signUp.ticket) {
      // An invitation link: its address is verified by the ticket itself.
      const ticket = invitationTicket(str(body.ticket));
      if (store.userByEmail(ticket.invitation.email)) {
        throw new ApiError(
          400,
          "organization_invitation_identification_already_exists",
          "The email address in this invitation already exists. If it belongs to you, try signing in instead.",
        );
      }
      signUp.ticket = ticket.invitation.ticket;
      signUp.email = ticket.invitation.email;
      signUp.emailVerification = "verified";
    }
    const email = str(body.email_address)?.trim().toLowerCase();
    if (email !== undefined && email !== null && email !== signUp.email) {
      if (!EMAIL.test(email)) {
        throw new ApiError(
          422,
          "form_param_format_invalid",
          "Email address must be a valid email address.",
          "email_address",
        );
      }
      if (store.userByEmail(email)) {
        throw new ApiError(
          422,
          "form_identifier_exists",
          "That email address is taken. Please try another.",
          "email_address",
        );
      }
      // Another address than the invited one must be verified the usual way.
      signUp.email = email;
      signUp.emailVerification = "none";
      signUp.ticket = null;
    }
    const password = str(body.password);
    if (password !== null) {
      if (password.length < 8) {
        throw new ApiError(
          422,
          "form_password_length_too_short",
          "Passwords must be 8 characters or more.",
          "password",
        );
      }
      signUp.passwordHash = hashPassword(password);
    }
    const first = str(body.first_name);
    const last = str(body.last_name);
    if (first !== null) signUp.firstName = first.trim().slice(0, 100) || null;
    if (last !== null) signUp.lastName = last.trim().slice(0, 100) || null;
    client.updatedAt = Date.now();
    completeSignUpIfReady(client, signUp);
    store.changed();
  };

  /** A verified address and a password make the user; an invitation ticket then makes them a member. */
  const completeSignUpIfReady = (client: ClientRecord, signUp: SignUpRecord) => {
    if (!signUp.email || !signUp.passwordHash || signUp.emailVerification !== "verified" || signUp.createdUserId) {
      return;
    }
    if (store.userByEmail(signUp.email)) {
      throw new ApiError(
        422,
        "form_identifier_exists",
        "That email address is taken. Please try another.",
        "email_address",
      );
    }
    // Checked again now: the invitation may have been revoked since the sign-up began.
    const ticket = signUp.ticket ? invitationTicket(signUp.ticket) : null;
    const user = store.createUser({
      email: signUp.email,
      passwordHash: signUp.passwordHash,
      firstName: signUp.firstName,
      lastName: signUp.lastName,
    });
    if (ticket) redeemTicket(store, ticket, user.id);
    const session = finishSignIn(client, user.id);
    signUp.status = "complete";
    signUp.createdUserId = user.id;
    signUp.createdSessionId = session.id;
  };

  route("POST", "/v1/client/sign_ups", (req, res) => {
    const client = ensureClient(req, res);
    client.signUp = {
      id: newId("sua"),
      email: null,
      passwordHash: null,
      firstName: null,
      lastName: null,
      emailVerification: "none",
      ticket: null,
      status: "missing_requirements",
      createdUserId: null,
      createdSessionId: null,
      createdAt: Date.now(),
    };
    applySignUpFields(client, req.body ?? {});
    return envelope(req, res, client, signUpJSON(client.signUp));
  });

  const currentSignUp = (req: Request, res: Response) => {
    const client = ensureClient(req, res);
    if (!client.signUp || client.signUp.id !== req.params.id) {
      throw new ApiError(404, "resource_not_found", "Sign-up not found");
    }
    return { client, signUp: client.signUp };
  };

  route("GET", "/v1/client/sign_ups/:id", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    return envelope(req, res, client, signUpJSON(signUp));
  });

  route("PATCH", "/v1/client/sign_ups/:id", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    applySignUpFields(client, req.body ?? {});
    return envelope(req, res, client, signUpJSON(signUp));
  });

  route("POST", "/v1/client/sign_ups/:id/prepare_verification", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    if (!signUp.email) throw new ApiError(422, "form_param_missing", "Enter your email address.", "email_address");
    if (signUp.emailVerification !== "verified") signUp.emailVerification = "unverified";
    return envelope(req, res, client, signUpJSON(signUp));
  });

  route("POST", "/v1/client/sign_ups/:id/attempt_verification", (req, res) => {
    const { client, signUp } = currentSignUp(req, res);
    if (str(req.body?.code) !== TEST_EMAIL_CODE) {
      throw new ApiError(422, "form_code_incorrect", "Incorrect code", "code");
    }
    signUp.emailVerification = "verified";
    completeSignUpIfReady(client, signUp);
    store.changed();
    return envelope(req, res, client, signUpJSON(signUp));
  });

  // Tickets: the link in an invitation or sign-in token lands on the app's
  // sign-up or sign-in page with the ticket, where Clerk's components redeem it.
  route("GET", "/v1/tickets/accept", (req, res) => {
    const ticket = str(req.query.ticket) ?? str(req.query.__clerk_ticket) ?? "";
    const found = lookUpTicket(store, ticket);
    const invitation = found?.kind === "invitation" ? found.invitation : null;
    // An unknown or spent ticket goes to sign-in too, whose component shows Clerk's error.
    const status = invitation && !store.userByEmail(invitation.email) ? "sign_up" : "sign_in";
    const landing = invitation?.redirectUrl ?? (status === "sign_up" ? SIGN_UP_URL : SIGN_IN_URL);
    const params = new URLSearchParams({ __clerk_ticket: ticket, __clerk_status: status });
    res.setHeader("Cache-Control", "no-store");
    res.redirect(303, `${landing}${landing.includes("?") ? "&" : "?"}${params}`);
  });

  // Sessions ------------------------------------------------------------------
  const mintForRequest = (req: Request, res: Response) => {
    const client = currentClient(req);
    const session = sessionOfClient(client, req.params.id);
    if (session.status !== "active" || session.expireAt <= Date.now()) {
      throw new ApiError(401, "signed_out", "You are signed out");
    }
    const raw = req.body?.organization_id;
    const orgId = raw === undefined ? undefined : str(raw) || null;
    res.setHeader("Cache-Control", "no-store");
    return { object: "token", jwt: mintToken(req, session, orgId) };
  };
  route("POST", "/v1/client/sessions/:id/tokens", mintForRequest);
  route("POST", "/v1/client/sessions/:id/tokens/:template", mintForRequest);

  route("POST", "/v1/client/sessions/:id/touch", (req, res) => {
    const client = currentClient(req);
    const session = sessionOfClient(client, req.params.id);
    if (session.status !== "active") throw new ApiError(401, "signed_out", "You are signed out");
    const requested = req.body?.active_organization_id;
    if (requested !== undefined) {
      const orgId = str(requested) || null;
      if (orgId && !store.membership(orgId, session.userId)) {
        throw new ApiError(404, "resource_not_found", "Organization not found", "active_organization_id");
      }
      session.lastActiveOrganizationId = orgId;
    }
    session.lastActiveAt = Date.now();
    session.updatedAt = session.lastActiveAt;
    if (client) {
      client.lastActiveSessionId = session.id;
      client.updatedAt = session.updatedAt;
    }
    store.changed();
    return envelope(req, res, client, sessionJSON(store, session, mintToken(req, session)));
  });

  const endSession = (status: "ended" | "removed") => (req: Request, res: Response) => {
    const client = currentClient(req);
    const session = sessionOfClient(client, req.params.id);
    if (session.status === "active") store.endSession(session, status);
    return envelope(req, res, client, sessionJSON(store, session, null));
  };
  route("POST", "/v1/client/sessions/:id/end", endSession("ended"));
  route("POST", "/v1/client/sessions/:id/remove", endSession("removed"));

  // The signed-in user --------------------------------------------------------
  const me = (req: Request) => {
    const session = activeSession(req);
    const user = store.user(session.userId);
    if (!user) throw new ApiError(404, "resource_not_found", "User not found");
    return { session, user };
  };

  route("GET", "/v1/me", (req, res) => envelope(req, res, currentClient(req), userJSON(store, me(req).user)));

  route("PATCH", "/v1/me", (req, res) => {
    const { user } = me(req);
    const first = str(req.body?.first_name);
    const last = str(req.body?.last_name);
    if (first !== null) user.firstName = first.trim().slice(0, 100) || null;
    if (last !== null) user.lastName = last.trim().slice(0, 100) || null;
    user.updatedAt = Date.now();
    store.changed();
    return envelope(req, res, currentClient(req), userJSON(store, user));
  });

  route("GET", "/v1/me/organization_memberships", (req, res) => {
    const { user } = me(req);
    const list = store.membershipsOfUser(user.id).map((m) => membershipJSON(store, m));
    return envelope(req, res, currentClient(req), paginate(list, req.query));
  });

  route("DELETE", "/v1/me/organization_memberships/:orgId", (req, res) => {
    const { user } = me(req);
    const org = store.org(String(req.params.orgId));
    const membership = org ? store.membership(org.id, user.id) : null;
    if (!membership) throw new ApiError(404, "resource_not_found", "Organization not found");
    removeMember(store, membership);
    const deleted = { object: "organization_membership", id: membership.id, deleted: true };
    return envelope(req, res, currentClient(req), deleted);
  });

  /** Invitations to the signed-in user's address: Clerk's switcher offers to accept them. */
  const myInvitations = (email: string) =>
    store.state.invitations.filter(
      (i) => i.email === email && i.status === "pending" && i.expiresAt > Date.now() && store.org(i.orgId),
    );

  route("GET", "/v1/me/organization_invitations", (req, res) => {
    const { user } = me(req);
    const status = str(req.query.status);
    const list = status && status !== "pending" ? [] : myInvitations(user.email);
    return envelope(
      req,
      res,
      currentClient(req),
      paginate(
        list.map((i) => invitationJSON(store, i, null)),
        req.query,
      ),
    );
  });

  route("POST", "/v1/me/organization_invitations/:id/accept", (req, res) => {
    const { user } = me(req);
    const invitation = myInvitations(user.email).find((i) => i.id === req.params.id);
    if (!invitation) throw new ApiError(404, "organization_invitation_not_found", "Invitation not found");
    redeemTicket(store, { kind: "invitation", invitation }, user.id);
    return envelope(req, res, currentClient(req), invitationJSON(store, invitation, null));
  });

  route("GET", "/v1/me/organization_suggestions", (req, res) => {
    me(req);
    return envelope(req, res, currentClient(req), { data: [], total_count: 0 });
  });

  route("GET", "/v1/me/sessions/active", (req, res) => {
    const { session } = me(req);
    const data = [
      {
        ...sessionJSON(store, session, null),
        user: null,
        latest_activity: {
          object: "session_activity",
          id: `sess_activity_${session.id}`,
          browser_name: "Chromium",
          device_type: "Computer",
          is_mobile: false,
        },
      },
    ];
    return envelope(req, res, currentClient(req), data);
  });

  // Organizations -------------------------------------------------------------
  route("POST", "/v1/organizations", (req, res) => {
    const { user } = me(req);
    const input = validateOrganizationInput(store, str(req.body?.name), str(req.body?.slug));
    const org = createOrganizationFor(store, user.id, input);
    return envelope(req, res, currentClient(req), organizationJSON(store, org));
  });

  const memberOrg = (req: Request) => {
    const { user } = me(req);
    const org = store.org(String(req.params.id));
    const membership = org ? store.membership(org.id, user.id) : null;
    if (!org || !membership) throw new ApiError(404, "resource_not_found", "Organization not found");
    return { org, membership, user };
  };

  route("GET", "/v1/organizations/:id", (req, res) =>
    envelope(req, res, currentClient(req), organizationJSON(store, memberOrg(req).org)),
  );

  route("GET", "/v1/organizations/:id/memberships", (req, res) => {
    const { org } = memberOrg(req);
    const list = store.membershipsOfOrg(org.id).map((m) => membershipJSON(store, m));
    return envelope(req, res, currentClient(req), paginate(list, req.query));
  });

  // Managing members, as Clerk's OrganizationProfile does: admins only, and the last admin stays.
  const adminOrg = (req: Request) => {
    const found = memberOrg(req);
    requireAdmin(found.membership);
    return found;
  };

  route("PATCH", "/v1/organizations/:id/memberships/:userId", (req, res) => {
    const { org } = adminOrg(req);
    const m = changeRole(store, membershipOf(store, org, String(req.params.userId)), parseRole(req.body?.role));
    return envelope(req, res, currentClient(req), membershipJSON(store, m));
  });

  route("DELETE", "/v1/organizations/:id/memberships/:userId", (req, res) => {
    const { org } = adminOrg(req);
    const m = membershipOf(store, org, String(req.params.userId));
    const json = membershipJSON(store, m);
    removeMember(store, m);
    return envelope(req, res, currentClient(req), json);
  });

  route("GET", "/v1/organizations/:id/invitations", (req, res) => {
    const { org } = adminOrg(req);
    const list = pendingInvitations(store, org.id).map((i) => invitationJSON(store, i, null));
    return envelope(req, res, currentClient(req), paginate(list, req.query));
  });

  const invite = (req: Request, email: unknown) => {
    const { org, user } = adminOrg(req);
    return createInvitation(store, org, {
      email: parseEmail(email),
      role: parseRole(req.body?.role),
      inviterUserId: user.id,
      redirectUrl: null,
    });
  };

  route("POST", "/v1/organizations/:id/invitations", (req, res) =>
    envelope(req, res, currentClient(req), invitationJSON(store, invite(req, req.body?.email_address), null)),
  );

  route("POST", "/v1/organizations/:id/invitations/bulk", (req, res) => {
    const raw: unknown = req.body?.email_address;
    const emails = Array.isArray(raw) ? raw : [raw];
    // Every address is checked for its form before any invitation is made.
    emails.forEach((email) => parseEmail(email));
    const created = emails.map((email) => invitationJSON(store, invite(req, email), null));
    return envelope(req, res, currentClient(req), created);
  });

  route("POST", "/v1/organizations/:id/invitations/:invitationId/revoke", (req, res) => {
    const { org } = adminOrg(req);
    const invitation = revokeInvitation(store, org, String(req.params.invitationId));
    return envelope(req, res, currentClient(req), invitationJSON(store, invitation, null));
  });

  route("GET", "/v1/organizations/:id/membership_requests", (req, res) => {
    memberOrg(req);
    return envelope(req, res, currentClient(req), { data: [], total_count: 0 });
  });

  route("GET", "/v1/organizations/:id/domains", (req, res) => {
    memberOrg(req);
    return envelope(req, res, currentClient(req), { data: [], total_count: 0 });
  });

  route("GET", "/v1/organizations/:id/roles", (req, res) => {
    memberOrg(req);
    const roles = ["org:admin", "org:member"].map((keyName) => ({
      object: "role",
      id: `role_${keyName.slice(4)}`,
      key: keyName,
      name: keyName === "org:admin" ? "Admin" : "Member",
      description: "",
      permissions: [],
      created_at: 0,
      updated_at: 0,
    }));
    return envelope(req, res, currentClient(req), { data: roles, total_count: roles.length });
  });

  // Handshake: @clerk/backend sends document requests here when the session
  // token has expired; we mint a fresh one and send the browser back.
  route("GET", "/v1/client/handshake", (req, res) => {
    const redirectUrl = str(req.query.redirect_url);
    const host = req.get("host");
    let target: URL;
    try {
      target = new URL(redirectUrl ?? "");
    } catch {
      throw new ApiError(400, "form_param_format_invalid", "redirect_url must be an absolute URL", "redirect_url");
    }
    if (target.host !== host)
      throw new ApiError(400, "form_param_value_invalid", "redirect_url must be on this origin", "redirect_url");

    const client = currentClient(req);
    const session = client ? store.activeSessions(client).find((s) => s.id === client.lastActiveSessionId) : undefined;
    const secure = req.secure ? "; Secure" : "";
    const directives = session
      ? [
          `__session=${mintToken(req, session)}; Path=/; SameSite=Lax${secure}`,
          `__client_uat=${Math.floor((client?.updatedAt ?? Date.now()) / 1000)}; Path=/; SameSite=Lax; Max-Age=31536000${secure}`,
        ]
      : [
          `__session=; Path=/; SameSite=Lax; Max-Age=0${secure}`,
          `__client_uat=0; Path=/; SameSite=Lax; Max-Age=31536000${secure}`,
        ];
    const nonce = newId("hsn", 32);
    store.state.handshakes = store.state.handshakes.filter((h) => h.expiresAt > Date.now());
    store.state.handshakes.push({ nonce, directives, expiresAt: Date.now() + 60_000 });
    target.searchParams.set("__clerk_handshake_nonce", nonce);
    res.setHeader("Cache-Control", "no-store");
    res.redirect(307, target.toString());
  });

  router.use(notImplemented);

  return router;
}
