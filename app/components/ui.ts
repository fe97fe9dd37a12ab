/**
 * The Radix Themes components of the page's frame and of most pages, each
 * from its own module. Importing `@radix-ui/themes` itself reaches every
 * component, and esbuild then puts whatever any chunk uses into the
 * first-load JavaScript: the menu, popover and dialog (`./*.radix.tsx`) could
 * not be left for later. Lint sends imports here. (Radix Themes' own imports
 * of the `radix-ui` umbrella package are made per primitive by `patches/`,
 * for the same reason.)
 *
 * Everything exported here travels together, in one chunk every page loads
 * (esbuild gives a module's re-exports to every entry that reaches the
 * module). So a component only forms use (`Callout`, `Radio`, `TextField`)
 * is imported from its own module where it is used, and stays in those
 * routes' chunks: 1.3 KB gzip less on the organization home. The same holds
 * for `Box` (the landing page), `Spinner` (Clerk's pages) and `Separator`
 * (the switcher's popover); the organization home's grid is a plain element
 * (`.figures`). Splitting the rest further would cost more in extra files
 * than it saves.
 *
 * The pages viewed most lay out and set plain text in their own elements
 * with Radix's tokens, not `Flex` and `Text`: each of those costs the server
 * its props' extraction (docs/decisions/0014-plain-layout-on-hot-pages.md).
 */
export { Badge } from "@radix-ui/themes/components/badge";
export { Button } from "@radix-ui/themes/components/button";
export { Card } from "@radix-ui/themes/components/card";
export { Code } from "@radix-ui/themes/components/code";
export { Flex } from "@radix-ui/themes/components/flex";
export { Heading } from "@radix-ui/themes/components/heading";
// (Only the menus render it, but their trigger is in the page before any menu opens: its rules belong to the first paint.)
export { IconButton } from "@radix-ui/themes/components/icon-button";
export { Text } from "@radix-ui/themes/components/text";
export { Theme } from "@radix-ui/themes/components/theme";
