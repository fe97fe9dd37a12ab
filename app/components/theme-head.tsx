import type { ResolvedTheme } from "~/lib/theme";

// The pre-paint step of remix-themes, kept in sync with our `<meta
// name="color-scheme">`: for "system" without a client hint the server cannot
// know the OS setting, so this runs before first paint and applies it.
const PRE_PAINT_SCRIPT = `(function(){var d=document.documentElement,c=d.classList;if(c.contains("light")||c.contains("dark"))return;var t=matchMedia("(prefers-color-scheme: dark)").matches?"dark":"light";c.add(t);var m=document.querySelector('meta[name="color-scheme"]');if(m)m.content=t;})();`;

/**
 * `resolved` is what the server could decide (explicit choice or client hint).
 * When it is null the browser decides, before the first paint.
 */
export function ThemeHead({ resolved, nonce }: { resolved: ResolvedTheme | null; nonce?: string }) {
  return (
    <>
      <meta name="color-scheme" content={resolved ?? "light dark"} />
      {resolved ? null : (
        <script nonce={nonce} suppressHydrationWarning dangerouslySetInnerHTML={{ __html: PRE_PAINT_SCRIPT }} />
      )}
    </>
  );
}
