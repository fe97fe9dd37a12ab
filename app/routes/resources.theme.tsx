import { Button, Card, Flex, Heading, Text } from "~/components/ui";
import * as Callout from "@radix-ui/themes/components/callout";
import { Radio } from "@radix-ui/themes/components/radio";
import {
  json,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { getRequestAuth } from "~/lib/clerk/auth.server";
import { enforceRateLimit } from "~/lib/http/rate-limit.server";
import { safeRedirectPath } from "~/lib/http/safe-redirect";
import { THEME_PREFERENCES, type ThemePreference } from "~/lib/theme/theme";
import { readThemeSubmission } from "~/lib/theme/theme-submission.server";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Theme — Teamwork" }, NOT_INDEXED];

// A document POST renders this page; the cookie the action set must reach it.
export const headers: HeadersFunction = ({ actionHeaders, loaderHeaders }) =>
  actionHeaders.has("Set-Cookie") ? actionHeaders : loaderHeaders;

export async function loader({ request, context }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  return {
    preference: await context.theme.read(request),
    redirectTo: safeRedirectPath(url.searchParams.get("redirectTo")),
  };
}

/**
 * Sets the `theme` cookie from a form: `theme`, plus `redirectTo` when a plain
 * form (no JavaScript) should come back to its page (same-origin paths only,
 * else `/`). The theme menu's fetcher sends no `redirectTo` and gets JSON.
 */
export async function action(args: ActionFunctionArgs) {
  const { request, context } = args;
  const submission = await readThemeSubmission(request);
  if (!submission.ok) {
    return json({ error: submission.error, submitted: submission.submitted }, { status: 400 });
  }
  const { userId } = await getRequestAuth(args);
  await enforceRateLimit(context, "theme", userId);
  context.analytics?.capture(request, "theme changed", { userId, properties: { theme: submission.theme } });
  const headers = { "Set-Cookie": await context.theme.serialize(submission.theme) };
  if (submission.redirectTo !== null) {
    return redirect(safeRedirectPath(submission.redirectTo), { status: 303, headers });
  }
  return json({ error: null, submitted: submission.theme }, { headers });
}

const LABELS: Record<ThemePreference, string> = { light: "Light", dark: "Dark", system: "Same as my system" };

/** The theme page: the no-JavaScript way to choose, and where a bad submission is explained. */
export default function ThemePage() {
  const { preference, redirectTo } = useLoaderData<typeof loader>();
  const result = useActionData<typeof action>();
  return (
    <Flex justify="center">
      <Card size="4" style={{ width: "100%", maxWidth: "28rem" }}>
        <Heading as="h1" size="6" mb="2">
          Theme
        </Heading>
        <Text as="p" color="gray" mb="4">
          Choose how Teamwork looks on this device.
        </Text>
        {result?.error ? (
          <Callout.Root color="red" role="alert" mb="4">
            <Callout.Text>{result.error}</Callout.Text>
          </Callout.Root>
        ) : null}
        <Form method="post" replace>
          <input type="hidden" name="redirectTo" value={redirectTo} />
          {/* Native radio buttons: they can be chosen without JavaScript. */}
          <fieldset className="plain-fieldset">
            <legend className="visually-hidden">Theme</legend>
            <Flex direction="column" gap="2">
              {THEME_PREFERENCES.map((value) => (
                <Text as="label" size="3" key={value}>
                  <Flex gap="2" align="center">
                    <Radio name="theme" value={value} defaultChecked={preference === value} />
                    {LABELS[value]}
                  </Flex>
                </Text>
              ))}
            </Flex>
          </fieldset>
          <Button type="submit" size="3" mt="4">
            Save
          </Button>
        </Form>
      </Card>
    </Flex>
  );
}
