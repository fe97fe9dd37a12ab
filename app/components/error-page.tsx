import { Button, Code, Flex, Heading, Text } from "@radix-ui/themes";
import { Link, isRouteErrorResponse } from "@remix-run/react";

type ErrorCopy = { status: number; title: string; message: string };

export function describeError(error: unknown): ErrorCopy {
  if (isRouteErrorResponse(error)) {
    if (error.status === 404) {
      return {
        status: 404,
        title: "Page not found",
        message: "We couldn't find that page. It may have moved, or the link may be mistyped.",
      };
    }
    const detail = typeof error.data === "string" && error.data.length < 300 ? error.data : error.statusText;
    return { status: error.status, title: detail || "Something went wrong", message: "Please try again." };
  }
  return {
    status: 500,
    title: "Something went wrong on our side",
    message: "Sorry about that. Please try again in a moment.",
  };
}

/** A friendly error inside the normal page frame (navigation bar and theme kept). */
export function ErrorPage({ error }: { error: unknown }) {
  const { status, title, message } = describeError(error);
  return (
    <Flex direction="column" align="start" gap="4" className="error-page" data-testid="error-page">
      <Code size="3" variant="soft">
        {status}
      </Code>
      <Heading as="h1" size="8">
        {title}
      </Heading>
      <Text as="p" size="4" color="gray">
        {message}
      </Text>
      <Flex gap="3">
        <Button asChild size="3">
          <Link to="/">Go to the home page</Link>
        </Button>
        {status >= 500 ? (
          <Button asChild size="3" variant="soft">
            <a href="">Try again</a>
          </Button>
        ) : null}
      </Flex>
    </Flex>
  );
}
