import { json } from "@remix-run/node";

/** The methods this app answers; anything else is refused before Remix (which cannot even represent TRACE). */
export const ALLOWED_METHODS = ["GET", "HEAD", "POST"];

const SESSION_COOKIE = /^__session(_[A-Za-z0-9-]+)?$/;
const BASE64URL = /^[A-Za-z0-9_-]+$/;

function isWellFormedJwt(value: string): boolean {
  const parts = value.split(".");
  if (parts.length !== 3 || !parts.every((p) => BASE64URL.test(p))) return false;
  try {
    JSON.parse(Buffer.from(parts[0]!, "base64url").toString("utf8"));
    JSON.parse(Buffer.from(parts[1]!, "base64url").toString("utf8"));
    return true;
  } catch {
    return false;
  }
}

/**
 * The Cookie header without what would crash a parser downstream: values
 * that are not valid percent-encoding, and session cookies that are not even
 * shaped like a JWT (@clerk/backend throws on those instead of treating the
 * visitor as signed out). A dropped cookie means "not there", as it should.
 */
export function sanitizeCookieHeader(header: string): string {
  return header
    .split(";")
    .map((part) => part.trim())
    .filter((part) => {
      const eq = part.indexOf("=");
      if (eq <= 0) return false;
      const name = part.slice(0, eq);
      const value = part.slice(eq + 1);
      try {
        decodeURIComponent(value);
      } catch {
        return false;
      }
      return !SESSION_COOKIE.test(name) || isWellFormedJwt(value);
    })
    .join("; ");
}

/**
 * A form submission's fields, or a 400 the person can read: for requests that
 * are not a form at all (JSON, binary, broken multipart) or cannot be parsed.
 */
export async function readFormData(request: Request): Promise<FormData> {
  const type = request.headers.get("Content-Type") ?? "";
  const isForm = type.startsWith("application/x-www-form-urlencoded") || type.startsWith("multipart/form-data");
  try {
    if (isForm) return await request.formData();
  } catch {
    // fall through to the 400
  }
  throw json({ message: "This form could not be read. Please go back and send it again." }, { status: 400 });
}
