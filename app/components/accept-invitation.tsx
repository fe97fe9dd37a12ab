import { useClerk } from "@clerk/clerk-react";
import { Form, useNavigate, useNavigation, useSubmit } from "@remix-run/react";
import { useState, type FormEvent } from "react";
import { ACCEPT_INVITATION_PATH, ORGANIZATIONS_CHANGED, orgPath, type MyInvitation } from "~/lib/orgs/organizations";
import { Button } from "./ui";

type Clerk = ReturnType<typeof useClerk>;

/**
 * Accepts through Clerk's Frontend API, as Clerk's own switcher does, makes
 * the organization active and has this instance forget the person's cached
 * lists. Throws when clerk-js could not accept (the invitation is gone,
 * Clerk is away); once accepted, the rest is best effort (the organization's
 * page makes it active too, and the server's copies expire in seconds).
 */
async function acceptInBrowser(clerk: Clerk, invitation: MyInvitation) {
  const { data } = await clerk.user!.getOrganizationInvitations({ status: "pending" });
  const pending = data.find((i) => i.id === invitation.id);
  if (!pending) throw new Error("The invitation is no longer pending.");
  await pending.accept();
  try {
    await clerk.setActive({ organization: invitation.orgId });
    await fetch("/resources/organizations", {
      method: "POST",
      body: new URLSearchParams({ organizationId: invitation.orgId }),
    });
  } catch {
    // accepted: opening the organization is what matters now
  }
  window.dispatchEvent(new Event(ORGANIZATIONS_CHANGED));
}

/**
 * Accept, for one invitation waiting for the signed-in person. A plain POST
 * to /orgs, which accepts it on the server and opens the organization (so it
 * works without JavaScript); with clerk-js loaded, Clerk's own accept, then
 * the organization opens client-side. Whatever clerk-js could not do, the
 * server does or explains.
 */
export function AcceptInvitation({
  invitation,
  onAccepted,
  size = "1",
}: {
  invitation: MyInvitation;
  onAccepted?: () => void;
  size?: "1" | "2";
}) {
  const clerk = useClerk();
  const navigate = useNavigate();
  const submit = useSubmit();
  const navigation = useNavigation();
  const [accepting, setAccepting] = useState(false);
  const posting = navigation.state !== "idle" && navigation.formData?.get("invitationId") === invitation.id;
  const busy = accepting || posting;

  function onSubmit(event: FormEvent<HTMLFormElement>) {
    const form = event.currentTarget;
    if (!clerk.loaded || !clerk.user) return;
    event.preventDefault();
    if (busy) return;
    setAccepting(true);
    acceptInBrowser(clerk, invitation)
      .then(
        () => {
          onAccepted?.();
          navigate(orgPath({ id: invitation.orgId, slug: invitation.slug }));
        },
        () => submit(form),
      )
      .finally(() => setAccepting(false));
  }

  return (
    <Form method="post" action={ACCEPT_INVITATION_PATH} onSubmit={onSubmit} className="accept-invitation">
      <input type="hidden" name="invitationId" value={invitation.id} />
      <Button type="submit" size={size} disabled={busy} aria-label={`Accept the invitation to ${invitation.name}`}>
        {busy ? "Joining…" : "Accept"}
      </Button>
    </Form>
  );
}
