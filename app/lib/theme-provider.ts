// remix-themes' index also exports its server helpers, which drag the whole of
// @remix-run/server-runtime (~23 KB gzipped) into the browser bundle. Its
// provider module is all the browser needs.
export { Theme, ThemeProvider, useTheme } from "remix-themes/build/theme-provider.js";
