// Browser only (Remix leaves `.client` modules out of the server's bundle,
// which cannot require): the server never loads clerk-js.
export { loadClerkJsScript } from "./clerk-js-script.cjs";
