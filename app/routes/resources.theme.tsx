import { Button, Callout, Card, Flex, Heading, RadioGroup, Text } from "@radix-ui/themes";
import {
  json,
  redirect,
  type ActionFunctionArgs,
  type HeadersFunction,
  type LoaderFunctionArgs,
  type MetaFunction,
} from "@remix-run/node";
import { Form, useActionData, useLoaderData } from "@remix-run/react";
import { enforceRateLimit } from "~/lib/rate-limit.server";
import { safeRedirectPath } from "~/lib/safe-redirect";
import { THEME_PREFERENCES, type ThemePreference } from "~/lib/theme";
import { readThemeSubmission } from "~/lib/theme-submission.server";
import { readThemePreference, serializeThemePreference } from "~/lib/theme.server";
import { getRequestAuth } from "~/lib/auth.server";

export const meta: MetaFunction = () => [{ title: "Theme — Teamwork" }];

// A document POST renders this page; the cookie the action set must reach it.
export const headers: HeadersFunction = ({ actionHeaders, loaderHeaders }) =>
  actionHeaders.has("Set-Cookie") ? actionHeaders : loaderHeaders;

export async function loader({ request }: LoaderFunctionArgs) {
  const url = new URL(request.url);
  return {
    preference: await readThemePreference(request),
    redirectTo: safeRedirectPath(url.searchParams.get("redirectTo")),
  };
}

/**
 * Sets the `theme` cookie. Accepts the menu's form (no JavaScript: redirects
 * back to a same-origin `redirectTo`, else `/`) and remix-themes' JSON body
 * (`{"theme": "light" | "dark" | null}`, null meaning system).
 */
export async function action(args: ActionFunctionArgs) {
  const { request, context } = args;
  const submission = await readThemeSubmission(request);
  if (!submission.ok) {
    return json({ error: submission.error, submitted: submission.submitted }, { status: 400 });
  }
  const { userId } = await getRequestAuth(args);
  enforceRateLimit(request, "theme", { userId, clientIp: context.clientIp });
  context.analytics?.capture(request, "theme changed", { userId, properties: { theme: submission.theme } });
  const headers = { "Set-Cookie": await serializeThemePreference(submission.theme) };
  if (submission.kind === "form") {
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
          <RadioGroup.Root name="theme" defaultValue={preference} aria-label="Theme">
            {THEME_PREFERENCES.map((value) => (
              <RadioGroup.Item key={value} value={value}>
                {LABELS[value]}
              </RadioGroup.Item>
            ))}
          </RadioGroup.Root>
          <Button type="submit" size="3" mt="4">
            Save
          </Button>
        </Form>
      </Card>
    </Flex>
  );
}
