import { ClerkLoading } from "@clerk/clerk-react";
import { Spinner } from "@radix-ui/themes/components/spinner";
import { Flex, Heading, Text } from "~/components/ui";
import { useEffect, type ReactNode } from "react";
import { useHydrated } from "~/hooks/use-hydrated";
import { loadClerk } from "~/lib/clerk/lazy-clerk";

/**
 * Centres one of Clerk's hosted components, and has clerk-js loaded for it.
 * Clerk's UI needs JavaScript, so without it the person is told so instead of
 * facing a blank page, under the page's heading (`heading`, where the page has
 * no other) that Clerk's component would otherwise give it.
 */
export function ClerkFrame({ label, heading, children }: { label: string; heading?: string; children: ReactNode }) {
  // A loading state only where something can load: not without JavaScript.
  const hydrated = useHydrated();
  // Clerk's screens are what clerk-js is for: it is loaded now.
  useEffect(loadClerk, []);
  return (
    <div className="clerk-frame">
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
      {hydrated ? (
        <ClerkLoading>
          <Flex align="center" justify="center" gap="2" role="status">
            <Spinner />
            <Text size="2" color="gray">
              Loading {label.toLowerCase()}…
            </Text>
          </Flex>
        </ClerkLoading>
      ) : null}
      {children}
    </div>
  );
}
