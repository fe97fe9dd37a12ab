// Clerk's template's routes, and what the apps Clerk runs these specs on (its next-app-router and
// react-vite templates, or the apps specs build) have and this template lacks: /buttons with the modal
// sign-in and sign-up buttons (sign-up-flow), the account pages user-profile opens (/user, path routing;
// /hash/user, hash routing with a <UserButton/>), /sign-in-or-up, the combined flow
// (sign-in-or-up-component), /waitlist with <Waitlist/> (waitlist-mode), /user-button
// (session-tasks-multi-session), /page-protected, signed-in people only (session-tasks-sign-in,
// session-tasks-sign-up), /clerk-status, clerk-js's load status (shared-ui-variant), /hash/sign-in, hash
// routing (navigation), the /transitive-state/* pages with their logs of useAuth (transitive-state), and the
// /composed/* pages of Core 3's composed profile exports (composed-components), and
// /onboarding/choose-organization, the page an app's taskUrls names (session-tasks-eject-flow).
import { type RouteConfig, index, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("sign-in/*", "routes/sign-in.tsx"),
  route("sign-up/*", "routes/sign-up.tsx"),
  route("sign-in-or-up/*", "routes/sign-in-or-up.tsx"),
  route("protected", "routes/protected.tsx"),
  route("user/*", "routes/user.tsx"),
  route("buttons", "routes/buttons.tsx"),
  route("hash/user", "routes/hash-user.tsx"),
  route("hash/sign-in", "routes/hash-sign-in.tsx"),
  route("clerk-status", "routes/clerk-status.tsx"),
  route("waitlist", "routes/waitlist.tsx"),
  route("user-button", "routes/user-button.tsx"),
  route("page-protected", "routes/page-protected.tsx"),
  route("transitive-state/organization-switcher", "routes/transitive-state-organization-switcher.tsx", [
    route(":orgId", "routes/transitive-state-organization.tsx"),
  ]),
  route("transitive-state/user-button", "routes/transitive-state-user-button.tsx", [
    index("routes/transitive-state-user-button-initial.tsx"),
    route("switched", "routes/transitive-state-user-button-switched.tsx"),
  ]),
  route("transitive-state/sign-out", "routes/transitive-state-sign-out.tsx", [
    index("routes/transitive-state-sign-out-button.tsx"),
    route("sign-in", "routes/transitive-state-signed-out.tsx"),
  ]),
  route("composed/user", "routes/composed-user.tsx"),
  route("composed/organization", "routes/composed-organization.tsx"),
  route("composed/organization-security", "routes/composed-organization-security.tsx"),
  route("onboarding/choose-organization", "routes/onboarding-choose-organization.tsx"),
] satisfies RouteConfig;
