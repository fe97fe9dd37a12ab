import { useEffect, useState } from "react";
import { useIsBusy } from "~/hooks/use-is-busy";
import { reportBrowserError } from "~/lib/analytics/browser-errors";
import type { Bar } from "~/lib/nprogress-bar";
import { whenIdle } from "~/lib/when-idle";

let loading: Promise<Bar> | null = null;
/** The configured bar, fetched once (a failed fetch is tried again next time). */
function loadBar(): Promise<Bar> {
  return (loading ??= import("~/lib/nprogress-bar").then(
    (module) => module.bar,
    (error: unknown) => {
      loading = null;
      throw error;
    },
  ));
}

/**
 * The thin bar at the top of the page during page changes (nprogress). No
 * page needs it before its first change, so its code is not part of the first
 * load: it comes when the browser is idle, or when a change starts before then.
 */
export function ProgressBar() {
  const busy = useIsBusy();
  const [bar, setBar] = useState<Bar | null>(null);

  useEffect(() => {
    if (bar) return;
    const load = () => void loadBar().then(setBar, (error: unknown) => reportBrowserError(error, "module load"));
    if (!busy) return whenIdle(load);
    load();
  }, [bar, busy]);

  useEffect(() => {
    if (!bar) return;
    if (busy) bar.start();
    else bar.done();
  }, [bar, busy]);

  useEffect(() => (bar ? () => void bar.remove() : undefined), [bar]);

  return null;
}
