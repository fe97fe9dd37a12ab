import type { MetaFunction } from "@remix-run/node";
import { NOT_INDEXED } from "~/lib/http/meta";

export const meta: MetaFunction = () => [{ title: "Page not found — Teamwork" }, NOT_INDEXED];

// Any path no other route claims: a 404 rendered by the root error boundary,
// inside the usual navigation bar and theme.
export function loader() {
  throw new Response("Not found", { status: 404 });
}

// A form posted to an address that does not exist is a 404 too, not a 405.
export function action() {
  throw new Response("Not found", { status: 404 });
}

export default function NotFound() {
  return null;
}
