import { useEffect, useRef } from "react";

type AuthChangeInput = {
  /** Who the server rendered the page for. */
  serverUserId: string | null;
  /** Who clerk-js says is signed in, once it has loaded. */
  clientUserId: string | null | undefined;
  clientLoaded: boolean;
  revalidator: { state: "idle" | "loading"; revalidate(): void };
};

/**
 * Keeps the server-rendered viewer in step when Clerk signs in or out in the
 * browser: the page's data is loaded again. At most once per user id, so a
 * server that keeps disagreeing (a wrong CLERK_JWT_KEY, clock skew) does not
 * make the page revalidate forever.
 */
export function useRevalidateOnAuthChange({ serverUserId, clientUserId, clientLoaded, revalidator }: AuthChangeInput) {
  const triedFor = useRef<string | null | undefined>(undefined);
  const { state, revalidate } = revalidator;
  useEffect(() => {
    const client = clientUserId ?? null;
    if (!clientLoaded || state !== "idle" || client === serverUserId || triedFor.current === client) return;
    triedFor.current = client;
    revalidate();
  }, [clientLoaded, clientUserId, serverUserId, state, revalidate]);
}
