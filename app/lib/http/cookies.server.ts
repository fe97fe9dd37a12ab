import { parse } from "cookie";

/** One cookie's value from the request (decoded), or null. */
export function readCookie(request: Request, name: string): string | null {
  return parse(request.headers.get("Cookie") ?? "")[name] ?? null;
}
