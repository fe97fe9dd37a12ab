import { useCallback, useEffect, useRef, useState } from "react";
import { afterPaintIn } from "~/lib/after-paint";
import { whenIdle } from "~/lib/when-idle";
import { useHydrated } from "./use-hydrated";
import { reportBrowserError } from "~/lib/analytics/browser-errors";

/**
 * A part of the interface whose code is a chunk of its own (a Radix menu,
 * popover or dialog): fetched once per page when the browser is idle after
 * hydration, or sooner when its stand-in (the no-JavaScript markup callers
 * show until then: spread `standIn` on it) is pointed at or focused; shown
 * once its styles (after-paint.css) are in too. A failed fetch is tried
 * again next time.
 */
export function lazyPart<Module>(load: () => Promise<Module>) {
  let pending: Promise<Module> | null = null;
  const fetchOnce = () =>
    (pending ??= Promise.all([load(), afterPaintIn])
      .then(([module]) => module)
      .catch((error: unknown) => {
        pending = null;
        throw error;
      }));

  return function useLazyPart() {
    const hydrated = useHydrated();
    const [module, setModule] = useState<Module | null>(null);
    // Without the part its no-JavaScript stand-in keeps working; the failure is reported, and retried on use.
    const request = useCallback(
      () => void fetchOnce().then(setModule, (error: unknown) => reportBrowserError(error, "module load")),
      [],
    );
    useEffect(() => (hydrated ? whenIdle(request) : undefined), [hydrated, request]);
    // Focus on the stand-in when the part arrives moves to the part's own trigger (`autoFocus`).
    const focused = useRef(false);
    const standIn = {
      onPointerEnter: hydrated ? request : undefined,
      onFocus: () => {
        focused.current = true;
        if (hydrated) request();
      },
      onBlur: () => {
        focused.current = false;
      },
    };
    return { module, standIn, autoFocus: focused.current };
  };
}
