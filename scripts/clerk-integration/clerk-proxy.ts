// The one rule packages/clerk-emulator/GUIDE.md gives for Vite, shared by both apps the harness runs
// (copied beside each app's vite.config.ts): /__clerk/* to the emulator with the prefix removed,
// X-Forwarded-* added, and the control API (/__clerk/_emulator/…) never forwarded (`false` is Vite's 404).
export function clerkProxy(target: string) {
  return {
    "/__clerk": {
      target,
      rewrite: (path: string) => path.replace(/^\/__clerk/, ""),
      xfwd: true,
      bypass: (req: { url?: string }) => (/^\/__clerk\/_emulator(\/|$)/i.test(req.url ?? "") ? false : undefined),
    },
  };
}
