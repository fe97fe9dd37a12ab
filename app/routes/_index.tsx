import { Box } from "@radix-ui/themes/components/box";
import { Badge, Button, Card, Flex, Heading, Text } from "~/components/ui";
import { redirect, type LoaderFunctionArgs, type MetaFunction } from "@remix-run/node";
import { Link } from "@remix-run/react";
import { getRequestAuth } from "~/lib/clerk/auth.server";
import { orgPath } from "~/lib/orgs/organizations";

export const meta: MetaFunction = () => [
  { title: "Teamwork — your organizations, in one place" },
  { name: "description", content: "Sign in, bring your team, and switch between organizations in a click." },
];

const FEATURES = [
  {
    title: "Organizations first",
    body: "Everything lives in an organization. Belong to several and switch between them from the top bar.",
  },
  {
    title: "Your theme, from the first frame",
    body: "Light, dark or your system's setting — chosen on the server, so the page never flashes the wrong colours.",
  },
  {
    title: "Works without JavaScript",
    body: "Every form is a real form. With JavaScript on, pages change smoothly with a thin progress bar.",
  },
];

/** Signed in, there is nothing to sell: go to the active organization (its page checks membership), else the list. */
export async function loader(args: LoaderFunctionArgs) {
  const { userId, orgId, orgSlug } = await getRequestAuth(args);
  if (userId) throw redirect(orgId ? orgPath({ id: orgId, slug: orgSlug ?? null }) : "/orgs");
  return null;
}

export default function Landing() {
  return (
    <>
      <Box className="hero">
        <Text as="p" size="2" color="indigo" weight="medium" className="hero-kicker">
          For teams
        </Text>
        <Heading as="h1" size={{ initial: "7", xs: "8", sm: "9" }} mt="2">
          Your organizations, in one place.
        </Heading>
        <Text as="p" size="5" color="gray" mt="4">
          Teamwork keeps your organizations, their members and your settings together — fast on every network,
          accessible on every device, and signed in through Clerk.
        </Text>
        <Flex gap="3" mt="6" wrap="wrap">
          <Button asChild size="3">
            <Link to="/sign-up">Create your account</Link>
          </Button>
          <Button asChild size="3" variant="soft">
            <Link to="/sign-in">Sign in</Link>
          </Button>
        </Flex>
      </Box>
      <section aria-label="What you get" className="feature-grid">
        {FEATURES.map((feature) => (
          <Card key={feature.title} size="3">
            <Badge color="indigo" variant="soft" mb="3">
              Included
            </Badge>
            <Heading as="h2" size="5" mb="2">
              {feature.title}
            </Heading>
            <Text as="p" size="3" color="gray">
              {feature.body}
            </Text>
          </Card>
        ))}
      </section>
    </>
  );
}
