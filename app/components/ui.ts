/**
 * The Radix Themes components this app uses, each from its own module.
 * Importing `@radix-ui/themes` itself reaches every component, and esbuild
 * then puts whatever any chunk uses into the first-load JavaScript: the
 * menu, popover and dialog (`./*.radix.tsx`) could not be left for later. Lint
 * sends imports here. (Radix Themes' own imports of the `radix-ui` umbrella
 * package are made per primitive by `patches/`, for the same reason.)
 */
export { Badge } from "@radix-ui/themes/components/badge";
export { Box } from "@radix-ui/themes/components/box";
export { Button } from "@radix-ui/themes/components/button";
export * as Callout from "@radix-ui/themes/components/callout";
export { Card } from "@radix-ui/themes/components/card";
export { Code } from "@radix-ui/themes/components/code";
export { Flex } from "@radix-ui/themes/components/flex";
export { Grid } from "@radix-ui/themes/components/grid";
export { Heading } from "@radix-ui/themes/components/heading";
export { IconButton } from "@radix-ui/themes/components/icon-button";
export { Radio } from "@radix-ui/themes/components/radio";
export { Separator } from "@radix-ui/themes/components/separator";
export { Spinner } from "@radix-ui/themes/components/spinner";
export { Text } from "@radix-ui/themes/components/text";
export * as TextField from "@radix-ui/themes/components/text-field";
export { Theme } from "@radix-ui/themes/components/theme";
