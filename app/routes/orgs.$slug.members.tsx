import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import * as Callout from "@radix-ui/themes/components/callout";
import * as TextField from "@radix-ui/themes/components/text-field";
import { json, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useLoaderData, useLocation, useNavigation } from "@remix-run/react";
import { useEffect, useRef } from "react";
import { FormError } from "~/components/form-error";
import { FormField } from "~/components/form-field";
import { MemberRow } from "~/components/member-row";
import { PendingInvitations } from "~/components/pending-invitations";
import { clerkErrorCode, clerkFieldErrors } from "~/lib/clerk/field-errors.server";
import { isLocalEmulator } from "~/lib/env.server";
import { formFailure, formOutage } from "~/lib/http/form-reply.server";
import { readFormData } from "~/lib/http/forms.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { listMembers, memberSearchLimit, pendingInvitations } from "~/lib/orgs/members.server";
import { readInvite, readMembersQuery, readInvitationId } from "~/lib/orgs/org-forms.server";
import { inviteMember, revokeInvitation } from "~/lib/orgs/org-writes.server";
import {
  INVITE_ROLES,
  isAdmin,
  MEMBERS_PAGE_SIZE,
  roleLabel,
  type Member,
  type PendingInvitation,
} from "~/lib/orgs/organizations";
import { requireOrgMembership, requireOrgMembershipWith } from "~/lib/orgs/require-org.server";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction<typeof loader> = ({ data }) => [
  { title: data ? `Members of ${data.org.name} — Teamwork` : "Members — Teamwork" },
  NOT_INDEXED,
];

export async function loader(args: LoaderFunctionArgs) {
  const { query, page } = readMembersQuery(new URL(args.request.url));
  // Local mode sends no email, so admins see each invitation's link instead.
  const local = isLocalEmulator();
  const limited = await memberSearchLimit(args, { query, page });
  if (limited) {
    // The page and its search box, still holding the query, with no directory: that is what costs.
    const { org } = await requireOrgMembership(args);
    const directory = { pageCount: 1, members: [] as Member[], total: 0, invitations: null, emailsSent: !local };
    return json(
      { org, query, page, ...directory, limited },
      { status: 429, headers: { "Retry-After": String(limited.retryAfterSeconds) } },
    );
  }
  const {
    org,
    data: [directory, invitations],
  } = await requireOrgMembershipWith(args, ({ id, role }) =>
    Promise.all([
      listMembers(args.context, id, { query, page }),
      isAdmin(role) ? pendingInvitations(args.context, id, { withLinks: local }) : null,
    ]),
  );
  return {
    org,
    query,
    page,
    pageCount: Math.max(1, Math.ceil(directory.total / MEMBERS_PAGE_SIZE)),
    ...directory,
    invitations,
    emailsSent: !local,
    limited: null,
  };
}

/** Invites someone (the default) or, with `intent=revoke`, revokes a pending invitation. Admins only. */
export async function action(args: ActionFunctionArgs) {
  const { org, userId } = await requireOrgMembership(args);
  if (!isAdmin(org.role)) {
    throw json(
      {
        message: `Only admins of ${org.name} can invite people or revoke invitations. Ask an admin, or ask to be made one.`,
      },
      { status: 403 },
    );
  }
  const form = await readFormData(args.request);
  if (form.get("intent") === "revoke") {
    await enforceRateLimit(args.context, "revoke-invitation", userId);
    return revoke(args, org, userId, form);
  }
  await enforceRateLimit(args.context, "invite", userId);
  return invite(args, org, userId, form);
}

type AdminOrg = { id: string; name: string };

async function invite(args: ActionFunctionArgs, org: AdminOrg, userId: string, form: FormData) {
  const submission = readInvite(form);
  if (!submission.ok) return formFailure(submission.values, submission.errors);
  const values: Record<string, string> = { emailAddress: submission.data.emailAddress, role: submission.data.role };
  try {
    await inviteMember(args.context, { orgId: org.id, inviterUserId: userId, ...submission.data });
    // The invitee's address stays out of analytics.
    args.context.analytics?.capture(args.request, "member invited", {
      userId,
      orgId: org.id,
      properties: { role: submission.data.role },
    });
    return json({ ok: true as const, invited: submission.data.emailAddress });
  } catch (error) {
    const outage = formOutage(error, values, "The invitation was not sent.");
    if (outage) return outage;
    const errors = clerkFieldErrors(error, { email_address: "emailAddress", role: "role" });
    if (!errors) throw error;
    return formFailure(values, errors);
  }
}

async function revoke(args: ActionFunctionArgs, org: AdminOrg, userId: string, form: FormData) {
  const invitationId = readInvitationId(form);
  const values: Record<string, string> = { invitationId: invitationId ?? "" };
  const refuse = (message: string, status: number) => formFailure(values, { revoke: message }, { status });
  if (!invitationId) return refuse("That is not an invitation of this organization.", 400);
  try {
    const invitation = await revokeInvitation(args.context, { orgId: org.id, invitationId, requestingUserId: userId });
    args.context.analytics?.capture(args.request, "invitation revoked", { userId, orgId: org.id });
    return json({ ok: true as const, revoked: invitation.emailAddress });
  } catch (error) {
    const outage = formOutage(error, values, "The invitation was not revoked.", "revoke");
    if (outage) return outage;
    switch (clerkErrorCode(error)) {
      case "organization_invitation_not_pending":
        return refuse("That invitation is no longer pending: it was accepted, revoked or has expired.", 409);
      case "organization_invitation_not_found":
        return refuse("That is not an invitation of this organization.", 404);
      default:
        throw error;
    }
  }
}

function pageLink(query: string, page: number) {
  const params = new URLSearchParams();
  if (query) params.set("q", query);
  if (page > 1) params.set("page", String(page));
  const search = params.toString();
  return search ? `?${search}` : ".";
}

export default function Members() {
  const { org, query, page, pageCount, members, total, invitations, emailsSent, limited } =
    useLoaderData<typeof loader>();
  return (
    <Flex direction="column" gap="5">
      <Flex justify="between" align="end" gap="4" wrap="wrap">
        <Heading as="h2" size="6">
          Members
        </Heading>
        <Form method="get" role="search" className="search-form" aria-label="Search members">
          <TextField.Root
            key={query}
            type="search"
            name="q"
            defaultValue={query}
            placeholder="Name or email"
            aria-label="Search members by name or email"
            size="2"
            maxLength={100}
          />
          <Button type="submit" variant="soft" size="2">
            Search
          </Button>
        </Form>
      </Flex>
      {limited ? (
        <Callout.Root color="red" role="alert" data-testid="search-limited">
          <Callout.Text>
            You have searched many times in a short while. Please wait {limited.wait} and search again.{" "}
            <Link to=".">Show all members</Link>
          </Callout.Text>
        </Callout.Root>
      ) : (
        <Directory {...{ org, query, page, pageCount, members, total }} />
      )}
      {invitations ? <InviteSection pending={invitations} emailsSent={emailsSent} /> : null}
    </Flex>
  );
}

function Directory({
  org,
  query,
  page,
  pageCount,
  members,
  total,
}: {
  org: { name: string };
  query: string;
  page: number;
  pageCount: number;
  members: Member[];
  total: number;
}) {
  return (
    <Card size="2">
      <Text as="p" size="2" color="gray" mb="2" role="status" data-testid="members-summary">
        {query
          ? `${total} ${total === 1 ? "member matches" : "members match"} “${query}”`
          : `${total} ${total === 1 ? "member" : "members"}`}
      </Text>
      {members.length > 0 ? (
        <ul className="member-list" aria-label={`Members of ${org.name}`}>
          {members.map((member) => (
            <MemberRow key={member.userId} member={member} />
          ))}
        </ul>
      ) : (
        <Text as="p" size="3" my="4">
          {query ? "No one matches that search." : "There is no one on this page."} <Link to=".">Show all members</Link>
        </Text>
      )}
      {pageCount > 1 ? (
        <nav aria-label="Pages" className="pagination">
          {page > 1 ? (
            <Link to={pageLink(query, page - 1)} rel="prev">
              ← Previous
            </Link>
          ) : (
            <span aria-hidden="true" />
          )}
          <Text size="2" color="gray">
            Page {page} of {pageCount}
          </Text>
          {page < pageCount ? (
            <Link to={pageLink(query, page + 1)} rel="next">
              Next →
            </Link>
          ) : (
            <span aria-hidden="true" />
          )}
        </nav>
      ) : null}
    </Card>
  );
}

function InviteSection({ pending, emailsSent }: { pending: PendingInvitation[]; emailsSent: boolean }) {
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const form = useRef<HTMLFormElement>(null);
  const { pathname } = useLocation();
  const busy =
    navigation.state === "submitting" && navigation.formMethod === "POST" && !navigation.formData?.has("intent");
  const invited = result && "invited" in result ? result.invited : null;
  const failed = result && "values" in result ? result : null;
  const errors: Record<string, string | undefined> = failed?.errors ?? {};

  useEffect(() => {
    if (invited) form.current?.reset();
  }, [invited, result]);

  return (
    <Card size="3" id="invite">
      <Heading as="h3" size="4" mb="1">
        Invite someone
      </Heading>
      <Text as="p" size="2" color="gray" mb="4">
        {emailsSent
          ? "They get an email with a link to join."
          : "Local mode sends no email: each pending invitation's link is listed below, to open in another browser."}
      </Text>
      {invited ? (
        <Callout.Root color="green" mb="4" role="status" data-testid="invite-sent">
          <Callout.Text>
            {emailsSent ? `Invitation sent to ${invited}.` : `Invitation made for ${invited}: its link is below.`}
          </Callout.Text>
        </Callout.Root>
      ) : null}
      {/* The fragment brings the answer (and any error) into view after a full-page post. */}
      <Form method="post" action={`${pathname}#invite`} ref={form} noValidate aria-label="Invite someone">
        <Flex direction="column" gap="4">
          <FormError message={errors.form} />
          <Flex gap="3" wrap="wrap" align="start">
            <div className="grow">
              <FormField
                label="Email address"
                name="emailAddress"
                type="email"
                autoComplete="off"
                defaultValue={failed?.values.emailAddress}
                error={errors.emailAddress}
                maxLength={254}
              />
            </div>
            <Flex direction="column" gap="1">
              <Text as="label" htmlFor="field-role" size="2" weight="medium">
                Role
              </Text>
              <select
                id="field-role"
                name="role"
                className="native-select"
                defaultValue={failed?.values.role || "org:member"}
              >
                {INVITE_ROLES.map((role) => (
                  <option key={role} value={role}>
                    {roleLabel(role)}
                  </option>
                ))}
              </select>
              {errors.role ? (
                <Text size="2" color="red" role="alert">
                  {errors.role}
                </Text>
              ) : null}
            </Flex>
          </Flex>
          <Flex justify="end">
            <Button type="submit" size="3" disabled={busy}>
              {busy ? "Sending…" : "Send invitation"}
            </Button>
          </Flex>
        </Flex>
      </Form>
      <PendingInvitations
        pending={pending}
        revoked={result && "revoked" in result ? result.revoked : null}
        revokeError={errors.revoke ?? null}
      />
    </Card>
  );
}

export { RouteErrorBoundary as ErrorBoundary } from "~/components/error-page";
