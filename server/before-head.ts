import type { OutgoingHttpHeaders, ServerResponse } from "node:http";

/**
 * Runs `check` on a response just before its head is written, whoever writes
 * it (Express, Remix's adapter, the emulator, a stream that writes its first
 * byte), with every header in place: headers handed to `writeHead` itself
 * are moved onto the response first, so `check` sees them and may change them.
 */
export function beforeHead(res: ServerResponse, check: (res: ServerResponse) => void): void {
  const writeHead = res.writeHead as (this: ServerResponse, ...args: unknown[]) => ServerResponse;
  res.writeHead = function writeHeadAfterCheck(this: ServerResponse, ...args: unknown[]) {
    // writeHead(status, [message], [headers])
    const at = args.findIndex((arg, i) => i > 0 && typeof arg === "object" && arg !== null && !Array.isArray(arg));
    if (at > 0) {
      for (const [name, value] of Object.entries(args[at] as OutgoingHttpHeaders)) {
        if (value !== undefined) this.setHeader(name, value);
      }
      args.splice(at, 1);
    }
    // writeHead(status): `check` sees the status about to be written.
    if (typeof args[0] === "number") this.statusCode = args[0];
    check(this);
    return writeHead.apply(this, args);
  } as typeof res.writeHead;
}
