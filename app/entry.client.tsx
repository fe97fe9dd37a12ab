import { RemixBrowser } from "@remix-run/react";
import { startTransition, StrictMode } from "react";
import { hydrateRoot } from "react-dom/client";
import { captureUncaughtErrors } from "~/lib/analytics/browser-errors";
import { reloadRestoredPageOnSignInChange } from "~/lib/restored-page";

// Before anything else runs: an error during hydration is reported too (once analytics load).
captureUncaughtErrors();
reloadRestoredPageOnSignInChange();

startTransition(() => {
  hydrateRoot(
    document,
    <StrictMode>
      <RemixBrowser />
    </StrictMode>,
  );
});
