import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { verifyWebhook } from "@clerk/backend/webhooks";

/** A webhook as an app receives it: verified with Clerk's own `verifyWebhook`, its JSON body kept whole. */
export type VerifiedWebhook = {
  type: string;
  data: Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test
  body: Record<string, unknown> & { type: string };
};

export type WebhookSink = { url: string; close(): Promise<void> };

/**
 * A loopback endpoint for the emulator's webhooks, as an app's would be: each
 * delivery is verified with `@clerk/backend/webhooks`' `verifyWebhook` and the
 * secret, handed to `onEvent` and answered 200; one that fails verification is
 * answered 400 (the emulator retries it, as Svix does) and handed to nobody.
 */
export async function startWebhookSink(
  secret: string,
  onEvent: (event: VerifiedWebhook) => void,
): Promise<WebhookSink> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (chunk: Buffer) => (body += chunk.toString()));
    req.on("end", () => {
      const headers = new Headers(req.headers as Record<string, string>);
      const request = new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body });
      void verifyWebhook(request, { signingSecret: secret }).then(
        (event) => {
          onEvent({ type: event.type, data: event.data as never, body: JSON.parse(body) as VerifiedWebhook["body"] });
          res.writeHead(200).end();
        },
        () => res.writeHead(400).end(),
      );
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    close: () => new Promise<void>((done) => server.close(() => done())),
  };
}
