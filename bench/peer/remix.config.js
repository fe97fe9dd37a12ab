/**
 * The peer for `npm run bench`: Clerk's Remix quickstart, signed in
 * (rootAuthLoader, ClerkApp, a page with <UserButton/>), built like ours.
 */
export { default } from "../baseline/remix.config.js";
