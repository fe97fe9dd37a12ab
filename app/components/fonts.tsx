import interLatin from "@fontsource-variable/inter/files/inter-latin-wght-normal.woff2";
import groteskLatin from "@fontsource-variable/space-grotesk/files/space-grotesk-latin-wght-normal.woff2";
import { holdFontsScript } from "~/lib/web-fonts";

/**
 * The head's part in the web fonts (app/lib/web-fonts.ts says when they come). A browser that has
 * them (`kept`): their files, preloaded with the first paint's stylesheet. A first visit: the
 * inline script that holds them back until the page has painted, or on a page that opens with one
 * of Clerk's screens (`clerkScreen`), until the screen is drawn: there the screen, drawn by
 * clerk-js, is the page's largest paint, and the fonts would share clerk-js's download
 * (docs/performance.md, "Clerk first").
 */
export function Fonts({ clerkScreen, kept, nonce }: { clerkScreen: boolean; kept: boolean; nonce: string }) {
  if (!kept)
    return (
      <script
        nonce={nonce}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{ __html: holdFontsScript(clerkScreen ? "clerk-screen" : "first-paint") }}
      />
    );
  return (
    <>
      {[interLatin, groteskLatin].map((href) => (
        <link key={href} rel="preload" href={href} as="font" type="font/woff2" crossOrigin="anonymous" />
      ))}
    </>
  );
}
