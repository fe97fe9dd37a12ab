import { Button, Code, Flex, Heading, Text } from "~/components/ui";
import { Link, isRouteErrorResponse, useLocation, useRouteError } from "@remix-run/react";
import { useEffect, useState } from "react";
import { useRootData } from "~/hooks/use-root-data";
import { reportBrowserError } from "~/lib/analytics/browser-errors";

type ErrorCopy = { status: number; title: string; message: string; reference?: string; retry: boolean };

function dataField(data: unknown, field: "message" | "reference"): string | undefined {
  if (typeof data !== "object" || data === null) return undefined;
  const value = (data as Record<string, unknown>)[field];
  return typeof value === "string" && value.length < 500 ? value : undefined;
}

/** What Remix shows in place of an error thrown while the server rendered the document (production hides it). */
const SERVER_RENDER_ERROR = "Unexpected Server Error";

/**
 * The error catalogue's wording for each situation (docs/errors.md).
 * `requestId` is the document request's, the reference of a failed render.
 */
export function describeError(error: unknown, requestId: string | null = null): ErrorCopy {
  if (isRouteErrorResponse(error)) {
    const message = dataField(error.data, "message");
    switch (error.status) {
      case 404:
        return {
          status: 404,
          title: "Page not found",
          message: "We couldn't find that page. It may have moved, or the link may be mistyped.",
          retry: false,
        };
      case 403:
        return {
          status: 403,
          title: "You can't do that here",
          message: message ?? "Your role doesn't allow this. Ask an admin of the organization for help.",
          retry: false,
        };
      case 429:
        return {
          status: 429,
          title: "Too many attempts",
          message: message ?? "Please wait a minute and try again.",
          retry: true,
        };
      case 503:
        return {
          status: 503,
          title: "Temporarily unavailable",
          message: message ?? "A service we depend on isn't answering. Please try again in a moment.",
          retry: true,
        };
      case 500:
        return {
          status: 500,
          title: "Something went wrong on our side",
          message: "Sorry about that. We have logged the problem; trying again often helps.",
          reference: dataField(error.data, "reference"),
          retry: true,
        };
    }
    return {
      status: error.status,
      title: error.statusText || "Something went wrong",
      message: message ?? "Please check the address and try again.",
      retry: error.status >= 500,
    };
  }
  return {
    status: 500,
    title: "Something went wrong on our side",
    message: "Sorry about that. Please try again in a moment.",
    reference: error instanceof Error && error.message === SERVER_RENDER_ERROR && requestId ? requestId : undefined,
    retry: true,
  };
}

// randomUUID needs a secure context; a page served over plain HTTP has none.
const newReference = () =>
  typeof crypto.randomUUID === "function"
    ? crypto.randomUUID()
    : `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 12)}`;

/**
 * An error thrown in this browser (a component that failed to render), as
 * opposed to one the server reported and answered for: it is reported from
 * here, under a reference of its own that the page shows.
 */
function useBrowserErrorReference(error: unknown): string | undefined {
  const thrownHere = error instanceof Error && error.message !== SERVER_RENDER_ERROR;
  const [reference] = useState(() => (thrownHere ? newReference() : undefined));
  useEffect(() => {
    if (thrownHere) reportBrowserError(error, "error boundary", reference);
  }, [error, thrownHere, reference]);
  return reference;
}

/**
 * The page an error boundary shows: the catalogue's. Under `npm run dev`, an
 * unexpected error shows its message and stack instead, as Remix's own
 * development error page does (a thrown response still gets its catalogue
 * page: that is what people see).
 */
export function ErrorPage({ error }: { error: unknown }) {
  if (process.env.NODE_ENV === "development" && error instanceof Error) return <DevelopmentErrorPage error={error} />;
  return <CatalogueErrorPage error={error} />;
}

function DevelopmentErrorPage({ error }: { error: Error }) {
  return (
    <Flex direction="column" align="start" gap="4" className="error-page" data-testid="development-error">
      <Heading as="h1" size="8">
        Application Error
      </Heading>
      <pre className="development-error-stack">{error.stack ?? `${error.name}: ${error.message}`}</pre>
    </Flex>
  );
}

/** A friendly error inside the normal page frame (navigation bar and theme kept). */
function CatalogueErrorPage({ error }: { error: unknown }) {
  const copy = describeError(error, useRootData()?.requestId ?? null);
  const browserReference = useBrowserErrorReference(error);
  const { status, title, message, retry } = copy;
  const reference = copy.reference ?? browserReference;
  const location = useLocation();
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
      {reference ? (
        <Text as="p" size="2" color="gray">
          If it keeps happening, tell us this reference: <Code data-testid="error-reference">{reference}</Code>
        </Text>
      ) : null}
      <Flex gap="3">
        {retry ? (
          // A plain link to this very address: without JavaScript it reloads the
          // page, with it Remix loads the page's data again.
          <Button asChild size="3">
            <Link to={location.pathname + location.search} data-testid="retry">
              Try again
            </Link>
          </Button>
        ) : null}
        <Button asChild size="3" variant={retry ? "soft" : "solid"}>
          <Link to="/">Go to the home page</Link>
        </Button>
      </Flex>
    </Flex>
  );
}

/** A route's error boundary: the error replaces only that route's part of the page. */
export function RouteErrorBoundary() {
  return <ErrorPage error={useRouteError()} />;
}
