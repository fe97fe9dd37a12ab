import express, { type Request } from "express";
import { ApiError } from "../domain/errors";

/** Clerk takes profile images and logos up to 10 MB, as PNG, JPEG, GIF or WebP. */
export const MAX_IMAGE_BYTES = 10 * 1024 * 1024;
const IMAGE_TYPES = ["image/png", "image/jpeg", "image/gif", "image/webp"];

/** Keeps a multipart or octet-stream body as bytes for `readImageUpload`. */
export const rawUploadBody = express.raw({
  type: ["multipart/form-data", "application/octet-stream"],
  limit: MAX_IMAGE_BYTES + 64 * 1024,
});

/**
 * The image a request uploads: the `file` field of a multipart form (what
 * clerk-js sends), or a bare `application/octet-stream` body. Node's own
 * multipart parser (undici's `Response.formData`) reads the form.
 */
export async function readImageUpload(req: Request): Promise<{ name: string; contentType: string; bytes: Buffer }> {
  const contentType = req.get("content-type") ?? "";
  const body: unknown = req.body;
  if (!Buffer.isBuffer(body) || body.length === 0) {
    throw new ApiError(400, "form_param_missing", "Choose an image to upload.", "file");
  }
  let upload: { name: string; contentType: string; bytes: Buffer };
  if (contentType.startsWith("multipart/form-data")) {
    let form: FormData;
    try {
      form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
    } catch {
      throw new ApiError(400, "request_body_invalid", "The upload could not be read.", "file");
    }
    const file = form.get("file");
    if (!file || typeof file === "string") {
      throw new ApiError(400, "form_param_missing", "Choose an image to upload.", "file");
    }
    upload = { name: file.name || "image", contentType: "", bytes: Buffer.from(await file.arrayBuffer()) };
  } else {
    upload = { name: "image", contentType: "", bytes: body };
  }
  upload.contentType = sniffImageType(upload.bytes) ?? "";
  if (!IMAGE_TYPES.includes(upload.contentType)) {
    throw new ApiError(422, "form_param_format_invalid", "Upload a PNG, JPEG, GIF or WebP image.", "file");
  }
  if (upload.bytes.length > MAX_IMAGE_BYTES) {
    throw new ApiError(413, "form_param_exceeds_allowed_size", "Images must be 10 MB or smaller.", "file");
  }
  return upload;
}

/** What the bytes are, whatever the browser said: served images must be images. */
function sniffImageType(bytes: Buffer): string | null {
  if (bytes.subarray(0, 8).equals(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]))) return "image/png";
  if (bytes[0] === 0xff && bytes[1] === 0xd8 && bytes[2] === 0xff) return "image/jpeg";
  if (bytes.subarray(0, 4).toString("latin1") === "GIF8") return "image/gif";
  if (bytes.subarray(0, 4).toString("latin1") === "RIFF" && bytes.subarray(8, 12).toString("latin1") === "WEBP")
    return "image/webp";
  return null;
}

/** A text field of a multipart upload (the Backend API's `uploader_user_id`), or null when absent. */
export async function uploadFormField(req: Request, name: string): Promise<string | null> {
  const contentType = req.get("content-type") ?? "";
  const body: unknown = req.body;
  if (!contentType.startsWith("multipart/form-data") || !Buffer.isBuffer(body)) return null;
  try {
    const form = await new Response(new Uint8Array(body), { headers: { "content-type": contentType } }).formData();
    const value = form.get(name);
    return typeof value === "string" ? value : null;
  } catch {
    return null;
  }
}
