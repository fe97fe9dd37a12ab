import type { ActionFunctionArgs, LoaderFunctionArgs } from "@remix-run/node";
import { forwardToPostHog } from "~/lib/analytics/proxy.server";

// `/ingest/*`: the browser's analytics go to this origin and on to PostHog,
// so neither ad-blockers nor the CSP need a third-party host.
export const loader = ({ request, params, context }: LoaderFunctionArgs) =>
  forwardToPostHog(request, params["*"] ?? "", context);
export const action = ({ request, params, context }: ActionFunctionArgs) =>
  forwardToPostHog(request, params["*"] ?? "", context);
