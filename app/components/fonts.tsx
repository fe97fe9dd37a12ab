import interLatin from "@fontsource-variable/inter/files/inter-latin-wght-normal.woff2";
import groteskLatin from "@fontsource-variable/space-grotesk/files/space-grotesk-latin-wght-normal.woff2";
import { FONTS_WAIT } from "~/lib/clerk-first";

/**
 * The head's part in the fonts. On most pages: their files, fetched with the first paint's
 * stylesheet rather than once it has been read. On a page that opens with one of Clerk's screens
 * (`clerkScreen`), none: the screen, drawn by clerk-js, is the page's largest paint, and on a
 * phone's network the fonts' 70 KB would share clerk-js's download (docs/performance.md, "Clerk
 * first"). There an inline script marks the document instead, so the page shows the fonts'
 * size-matched fallbacks (fonts.css) and fetches nothing until the screen is drawn. Without
 * JavaScript the script does not run: the fonts come as on any page, and nothing waits for a
 * screen that cannot come.
 */
export function Fonts({ clerkScreen, nonce }: { clerkScreen: boolean; nonce: string }) {
  if (clerkScreen)
    return (
      <script
        nonce={nonce}
        suppressHydrationWarning
        dangerouslySetInnerHTML={{ __html: `document.documentElement.setAttribute("${FONTS_WAIT}","")` }}
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
