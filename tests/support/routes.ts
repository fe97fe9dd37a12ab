/** Every page of the product, for the sweeps (overflow, accessibility) that visit them all. */
export const ROUTES = {
  signedOut: ["/", "/sign-in", "/sign-up", "/resources/theme", "/no/such/page"],
  signedIn: [
    "/orgs",
    "/orgs/new",
    "/orgs/analytical-engines",
    "/orgs/analytical-engines/members",
    "/orgs/analytical-engines/settings",
    "/user",
  ],
};

/** Pages that are one of Clerk's components: they render once clerk-js has loaded (with JavaScript). */
export const CLERK_PAGES = /^\/(sign-in|sign-up|user)|\/settings$/;
