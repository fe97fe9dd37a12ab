import type { RequestHandler } from "express";
import { refuse } from "./refuse";

/**
 * Local mode answers only to the names of this machine on its own port: a
 * web page cannot then point another name at 127.0.0.1 (DNS rebinding) and
 * use the emulator's sign-in or data. The defence Vite's and webpack's
 * development servers use.
 */
export function localHostsOnly(port: number): RequestHandler {
  const allowed = new Set([`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`]);
  return (req, res, next) => {
    if (allowed.has((req.get("Host") ?? "").toLowerCase())) return next();
    refuse(
      res,
      403,
      "Local mode only",
      `This server runs Teamwork in local mode, on the bundled Clerk emulator, and answers only at http://localhost:${port}. Open it there, or set the Clerk keys to run it under another name.`,
    );
  };
}
