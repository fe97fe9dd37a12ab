import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import { redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation } from "@remix-run/react";
import { FormError } from "~/components/form-error";
import { FormField } from "~/components/form-field";
import { requireUserId } from "~/lib/clerk/auth.server";
import { clerkFieldErrors } from "~/lib/clerk/field-errors.server";
import { formFailure, formOutage } from "~/lib/http/form-reply.server";
import { readFormData } from "~/lib/http/forms.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { readNewOrganization } from "~/lib/orgs/org-forms.server";
import { createOrganization } from "~/lib/orgs/org-writes.server";
import { orgPath } from "~/lib/orgs/organizations";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Create an organization — Teamwork" }, NOT_INDEXED];

export async function loader(args: LoaderFunctionArgs) {
  await requireUserId(args);
  return null;
}

export async function action(args: ActionFunctionArgs) {
  const userId = await requireUserId(args);
  await enforceRateLimit(args.context, "create-organization", userId);
  const submission = readNewOrganization(await readFormData(args.request));
  if (!submission.ok) return formFailure(submission.values, submission.errors);
  const values = { name: submission.data.name, slug: submission.data.slug ?? "" };
  try {
    const org = await createOrganization(args.context, { userId, ...submission.data });
    args.context.analytics?.capture(args.request, "organization created", { userId, orgId: org.id });
    return redirect(orgPath(org), 303);
  } catch (error) {
    const outage = formOutage(error, values, "The organization was not created.");
    if (outage) return outage;
    const errors = clerkFieldErrors(error, { name: "name", slug: "slug" });
    if (!errors) throw error;
    return formFailure(values, errors);
  }
}

export default function NewOrganization() {
  const result = useActionData<typeof action>();
  const navigation = useNavigation();
  const busy = navigation.state === "submitting" && navigation.formAction === "/orgs/new";
  const errors: Record<string, string | undefined> = result?.errors ?? {};
  return (
    <Flex direction="column" gap="5" className="narrow-page">
      <div>
        <Heading as="h1" size="8">
          Create an organization
        </Heading>
        <Text as="p" size="3" color="gray" mt="2">
          An organization is where your team works together. You will be its admin.
        </Text>
      </div>
      <Card size="3">
        <Form method="post" noValidate aria-label="Create an organization">
          <Flex direction="column" gap="4">
            <FormError message={errors.form} />
            <FormField
              label="Name"
              name="name"
              defaultValue={result?.values.name}
              error={errors.name}
              autoComplete="organization"
              required
              maxLength={64}
            />
            <FormField
              label="Address (optional)"
              name="slug"
              defaultValue={result?.values.slug}
              error={errors.slug}
              hint="Lowercase letters, digits and dashes, used in the organization's links. Made from the name if empty."
              autoCapitalize="none"
              spellCheck={false}
              maxLength={64}
            />
            <Flex gap="3" justify="end">
              <Button asChild variant="soft" color="gray" size="3">
                <Link to="/orgs">Cancel</Link>
              </Button>
              <Button type="submit" size="3" disabled={busy}>
                {busy ? "Creating…" : "Create organization"}
              </Button>
            </Flex>
          </Flex>
        </Form>
      </Card>
    </Flex>
  );
}
