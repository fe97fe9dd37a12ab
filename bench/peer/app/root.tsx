import { ClerkApp } from "@clerk/remix";
import { rootAuthLoader } from "@clerk/remix/ssr.server";
import type { LoaderFunctionArgs } from "@remix-run/node";
// The same bare document as the hello-world baseline, wrapped in Clerk as the quickstart does.
import Document from "../../baseline/app/root";

export const loader = (args: LoaderFunctionArgs) => rootAuthLoader(args);

export default ClerkApp(Document);
