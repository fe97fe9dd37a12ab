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
