import { ClerkLoading } from "@clerk/clerk-react";
import { Spinner } from "@radix-ui/themes/components/spinner";
import { Flex, Heading, Text } from "~/components/ui";
import { useEffect, type ReactNode } from "react";
import { useRootData } from "~/hooks/use-root-data";
import { loadClerk } from "~/lib/clerk/lazy-clerk";
import { useNonce } from "~/lib/http/nonce";

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
          <Spinner />
          <Text size="2" color="gray">
            {loading}
          </Text>
        </Flex>
      </ClerkLoading>
      {children}
    </div>
  );
}

/**
 * On a page that opens with one of Clerk's screens, clerk-js's download
 * starts while the document is still being read, not after hydration (about
 * 0.6 s later on a phone): the screen is the page's largest paint, and it is
 * drawn only once clerk-js has run. A preload only fetches, so clerk-js still
 * runs when Clerk's provider asks for it, from the same URL with the same
 * `crossorigin` (the preload is used, not fetched twice:
 * tests/e2e/lazy-parts.spec.ts). An inline script adds it, so a browser
 * without JavaScript, which could not run clerk-js, does not download it.
 * After a client-side navigation React does not run the script; the frame's
 * effect loads clerk-js at once then.
 */
function ClerkJsEarly() {
  const nonce = useNonce();
  const url = useRootData()?.clerkState.__internal_clerk_state.__clerkJSUrl;
  if (!url) return null;
  const preload = `var l=document.createElement("link");l.rel="preload";l.as="script";l.crossOrigin="anonymous";l.href=${JSON.stringify(url).replace(/</g, "\\u003c")};document.head.appendChild(l)`;
  // The nonce is hidden from the browser's DOM (so "" when hydrating): the one attribute allowed to differ.
  return <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: preload }} />;
}
