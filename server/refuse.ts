import type { Response } from "express";

/**
 * The short plain page for requests refused before Remix sees them (no
 * navigation bar: nothing of the app has run). Messages are fixed strings.
 */
export function refuse(
  res: Response,
  status: number,
  title: string,
  message: string,
  headers: Record<string, string> = {},
): void {
  res
    .status(status)
    .set({ "Cache-Control": "no-store", ...headers })
    .type("html")
    .send(
      `<!DOCTYPE html><html lang="en"><meta charset="utf-8"><title>${title} — Teamwork</title><h1>${title}</h1><p>${message}</p><p><a href="/">Go to the home page</a></p></html>`,
    );
}

/**
 * `refuse`, and the connection closed as soon as the page is handed to the
 * kernel, for a request whose body is not wanted. Without this, Node reads
 * and throws away the body while the answer flushes: a refused 990 KB form
 * cost 128 KB of reading instead of the 64 KB that came with its headers.
 * (Closing with unread bytes resets a connection that is still sending; the
 * page has come first, and Chromium shows it: tests/e2e/errors.spec.ts.)
 */
export function refuseUnread(...[res, status, title, message, headers = {}]: Parameters<typeof refuse>): void {
  const socket = res.req.socket;
  // No more reading from now: what Node has read so far (64 KB at most) is all.
  socket.pause();
  res.once("finish", () => {
    // Nothing left to write: the page is with the kernel. (Otherwise Node
    // closes it once written, as for any "Connection: close" answer.)
    if (socket.writableLength === 0) socket.destroy();
  });
  refuse(res, status, title, message, { ...headers, Connection: "close" });
}
