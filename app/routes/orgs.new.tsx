import { Button, Card, Flex, Heading, Text } from "@radix-ui/themes";
import { json, redirect, type ActionFunctionArgs, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Form, Link, useActionData, useNavigation } from "@remix-run/react";
import { FormError } from "~/components/form-error";
import { FormField } from "~/components/form-field";
import { requireUserId } from "~/lib/auth.server";
import { clerkFieldErrors } from "~/lib/clerk.server";
import { readNewOrganization } from "~/lib/organization-forms.server";
import { enforceRateLimit } from "~/lib/rate-limit.server";
import { readFormData } from "~/lib/request-hygiene.server";
import { orgPath } from "~/lib/organizations";
import { createOrganization } from "~/lib/organizations.server";
import { isUnavailable, UNAVAILABLE_MESSAGE } from "~/lib/upstream-request.server";

export const meta: MetaFunction = () => [{ title: "Create an organization — Teamwork" }];

export async function loader(args: LoaderFunctionArgs) {
  await requireUserId(args);
  return null;
}

export async function action(args: ActionFunctionArgs) {
  const userId = await requireUserId(args);
  enforceRateLimit(args.request, "create-organization", { userId, clientIp: args.context.clientIp });
  const submission = readNewOrganization(await readFormData(args.request));
  if (!submission.ok) return json({ values: submission.values, errors: submission.errors }, { status: 400 });
  const values = { name: submission.data.name, slug: submission.data.slug ?? "" };
  try {
    const org = await createOrganization(args.request, { userId, ...submission.data });
    args.context.analytics?.capture(args.request, "organization created", { userId, orgId: org.id });
    return redirect(orgPath(org.slug), 303);
  } catch (error) {
    if (isUnavailable(error)) {
      return json({ values, errors: { form: UNAVAILABLE_MESSAGE } as Record<string, string> }, { status: 503 });
    }
    const errors = clerkFieldErrors(error, { name: "name", slug: "slug" });
    if (!errors) throw error;
    return json({ values, errors }, { status: 400 });
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
