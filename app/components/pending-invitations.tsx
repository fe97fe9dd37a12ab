import { Button, Flex, Heading, Text } from "~/components/ui";
import * as Callout from "@radix-ui/themes/components/callout";
import { Form, useLocation, useNavigation } from "@remix-run/react";
import { useState } from "react";
import { useHydrated } from "~/hooks/use-hydrated";
import { roleLabel, type PendingInvitation } from "~/lib/orgs/organizations";

/**
 * The pending invitations an admin sees, each with a revoke form (a plain
 * POST, so it works without JavaScript) and, in local mode, its link.
 */
export function PendingInvitations({
  pending,
  revoked,
  revokeError,
}: {
  pending: PendingInvitation[];
  revoked: string | null;
  revokeError: string | null;
}) {
  const { pathname } = useLocation();
  const navigation = useNavigation();
  const revoking = navigation.state === "submitting" ? navigation.formData?.get("invitationId") : null;

  return (
    <section aria-labelledby="pending-invitations-heading">
      <Heading as="h4" size="3" mt="5" mb="2" id="pending-invitations-heading">
        Pending invitations
      </Heading>
      {revoked ? (
        <Callout.Root color="green" mb="3" role="status" data-testid="invitation-revoked">
          <Callout.Text>The invitation to {revoked} was revoked: its link no longer works.</Callout.Text>
        </Callout.Root>
      ) : null}
      {revokeError ? (
        <Callout.Root color="red" mb="3" role="alert" data-testid="revoke-error">
          <Callout.Text>{revokeError}</Callout.Text>
        </Callout.Root>
      ) : null}
      {pending.length === 0 ? (
        <Text as="p" size="2" color="gray">
          None.
        </Text>
      ) : (
        <ul className="plain-list invitation-list" data-testid="pending-invitations">
          {pending.map((invitation) => (
            <li key={invitation.id} className="invitation-row" data-testid="pending-invitation">
              <Flex justify="between" align="center" gap="3" wrap="wrap">
                <Text size="2" className="invitation-email">
                  {invitation.emailAddress}{" "}
                  <Text size="1" color="gray">
                    · {roleLabel(invitation.role)}
                  </Text>
                </Text>
                <Form method="post" action={`${pathname}#invite`}>
                  <input type="hidden" name="intent" value="revoke" />
                  <input type="hidden" name="invitationId" value={invitation.id} />
                  <Button
                    type="submit"
                    size="1"
                    variant="soft"
                    color="red"
                    disabled={revoking === invitation.id}
                    aria-label={`Revoke the invitation to ${invitation.emailAddress}`}
                  >
                    {revoking === invitation.id ? "Revoking…" : "Revoke"}
                  </Button>
                </Form>
              </Flex>
              {invitation.url ? <InvitationLink url={invitation.url} email={invitation.emailAddress} /> : null}
            </li>
          ))}
        </ul>
      )}
    </section>
  );
}

/** The link itself, selectable without JavaScript; with it, a button copies it. */
function InvitationLink({ url, email }: { url: string; email: string }) {
  const hydrated = useHydrated();
  const [copied, setCopied] = useState<"yes" | "failed" | null>(null);

  async function copy() {
    try {
      await navigator.clipboard.writeText(url);
      setCopied("yes");
    } catch {
      setCopied("failed");
    }
  }

  return (
    <Flex gap="2" align="center" mt="2" className="invitation-link">
      <input
        type="text"
        readOnly
        value={url}
        className="invitation-link-input"
        aria-label={`Invitation link for ${email}`}
        onFocus={(event) => event.currentTarget.select()}
      />
      {hydrated ? (
        <Button type="button" size="1" variant="soft" onClick={() => void copy()}>
          {copied === "yes" ? "Copied" : "Copy link"}
        </Button>
      ) : null}
      <span className="visually-hidden" aria-live="polite">
        {copied === "yes"
          ? `Link for ${email} copied.`
          : copied === "failed"
            ? "Copying failed: select the link and copy it."
            : ""}
      </span>
    </Flex>
  );
}
