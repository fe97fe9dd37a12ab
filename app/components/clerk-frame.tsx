import { ClerkLoading } from "@clerk/clerk-react";
import { Spinner } from "@radix-ui/themes/components/spinner";
import { Flex, Heading, Text } from "~/components/ui";
import { useEffect, type ReactNode } from "react";
import { loadClerk } from "~/lib/clerk/lazy-clerk";
import { ClerkJsEarly } from "~/components/clerk-js-early";

/**
 * Centres one of Clerk's hosted components, and has clerk-js loaded for it.
 * Clerk's UI needs JavaScript, so without it the person is told so instead of
 * facing a blank page, under the page's heading (`heading`, where the page has
 * no other) that Clerk's component would otherwise give it.
 */
export function ClerkFrame({
  label,
  loading,
  heading,
  children,
}: {
  /** What the screen is for, as "… needs JavaScript" begins ("Signing in"). */
  label: string;
  /** The status line until Clerk has drawn ("Loading your profile…"). */
  loading: string;
  heading?: string;
  children: ReactNode;
}) {
  // Clerk's screens are what clerk-js is for: it is loaded now.
  useEffect(loadClerk, []);
  return (
    <div className="clerk-frame">
      <ClerkJsEarly />
      <noscript>
        {heading ? (
          <Heading as="h1" size="6" mb="2">
            {heading}
          </Heading>
        ) : null}
        <Text as="p" size="3" color="gray">
          {label} needs JavaScript. Please turn it on and reload this page.
        </Text>
      </noscript>
      {/* In the first paint, not only once hydrated: until Clerk draws, the page says what comes. Without
          JavaScript nothing can load, so the stylesheet hides it (`.clerk-frame-loading`, `scripting: none`). */}
      <ClerkLoading>
        <Flex className="clerk-frame-loading" align="center" justify="center" gap="2" role="status">
          {/* Turning only after a second (app/styles/app.css, `.clerk-frame-spinner`). */}
          <span className="clerk-frame-spinner">
            <Spinner size="2" />
          </span>
          <Text size="2" color="gray">
            {loading}
          </Text>
        </Flex>
      </ClerkLoading>
      {children}
    </div>
  );
}
