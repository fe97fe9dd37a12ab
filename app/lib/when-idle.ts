/** Runs `task` when the browser is idle (or soon, where it cannot say); returns a cancel function. */
export function whenIdle(task: () => void, timeout = 2_000): () => void {
  if ("requestIdleCallback" in window) {
    const handle = window.requestIdleCallback(task, { timeout });
    return () => window.cancelIdleCallback(handle);
  }
  const handle = setTimeout(task, 1);
  return () => clearTimeout(handle);
}
