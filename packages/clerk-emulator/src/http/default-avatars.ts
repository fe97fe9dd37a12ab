import { createHash } from "node:crypto";
import type { Request, Response } from "express";
import { ApiError } from "../domain/errors";
import { readDefaultAvatar } from "../domain/public-profile";
import { sendJson } from "./routing";

/**
 * The picture of a user or organization with no image of its own: what
 * `https://img.clerk.com/<payload>` draws for Clerk, drawn here instead (the
 * emulator makes no browser fetch anything beyond loopback). The payload is
 * the whole input, as for Clerk's: a circle in a colour of the resource's id,
 * with its initials when it has a name, else a person's silhouette.
 */
export function serveDefaultAvatar(req: Request, res: Response): void {
  const avatar = readDefaultAvatar(String(req.params.payload ?? ""));
  if (!avatar) {
    sendJson(res, 404, new ApiError(404, "resource_not_found", "No such image").toJSON());
    return;
  }
  res.setHeader("Content-Type", "image/svg+xml");
  res.setHeader("Cache-Control", "public, max-age=31536000, immutable");
  res.setHeader("X-Content-Type-Options", "nosniff");
  // An SVG opened on its own is a document: it may run nothing and load nothing.
  res.setHeader("Content-Security-Policy", "default-src 'none'");
  res.end(defaultAvatarSvg(avatar.rid, avatar.initials ?? ""));
}

const escapeXml = (text: string) =>
  text.replace(/[<>&"']/g, (c) => ({ "<": "&lt;", ">": "&gt;", "&": "&amp;", '"': "&quot;", "'": "&apos;" })[c]!);

/** A 128-pixel square SVG: a background hue taken from `seed`, the initials (two at the most) or a silhouette. */
export function defaultAvatarSvg(seed: string, initials: string): string {
  const hue = createHash("sha256").update(seed).digest().readUInt16BE(0) % 360;
  const letters = escapeXml(Array.from(initials).slice(0, 2).join(""));
  const face = letters
    ? `<text x="64" y="64" dy=".35em" text-anchor="middle" font-family="system-ui, sans-serif" font-size="52" font-weight="600" fill="#fff">${letters}</text>`
    : `<circle cx="64" cy="50" r="22" fill="#fff" fill-opacity=".9"/><path d="M24 112c4-22 20-34 40-34s36 12 40 34z" fill="#fff" fill-opacity=".9"/>`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128">` +
    `<rect width="128" height="128" fill="hsl(${hue} 45% 45%)"/>${face}</svg>`
  );
}
