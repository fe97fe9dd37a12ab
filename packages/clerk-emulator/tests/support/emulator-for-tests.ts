import { afterAll, beforeAll, expect } from "vitest";
import { webhookBreaches } from "../../contract";
import {
  newWebhookSecret,
  startInProcessEmulator,
  startWebhookSink,
  type InProcessEmulator,
  type WebhookSink,
} from "../../testing";

/**
 * The emulator alone, in this process, for the test file (`startInProcessEmulator`): started before
 * its tests and stopped after them. Its fields are there once the tests run.
 */
export function emulatorForTests(options: Parameters<typeof startInProcessEmulator>[0] = {}): InProcessEmulator {
  const emu = {} as InProcessEmulator;
  beforeAll(async () => {
    Object.assign(emu, await startInProcessEmulator(options));
  });
  afterAll(async () => {
    await emu.close?.();
  });
  return emu;
}

/** A webhook the test file received: its event type and data, as Clerk's JSON. */
export type ReceivedEvent = { type: string; data: Record<string, any> }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test

/**
 * An in-process emulator for the test file whose webhooks reach a sink of its own, received through
 * verifyWebhook as an app receives them: every event kept in `events`, in order. Started before the
 * file's tests and stopped after them, when every webhook body must have kept Clerk's spec for its
 * event type. `emu`'s fields are there once the tests run.
 */
export function emulatorWithWebhooksForTests(options: Parameters<typeof startInProcessEmulator>[0] = {}): {
  emu: InProcessEmulator;
  events: ReceivedEvent[];
} {
  const emu = {} as InProcessEmulator;
  const events: ReceivedEvent[] = [];
  const breaches: string[] = [];
  let sink: WebhookSink | undefined;
  beforeAll(async () => {
    const secret = newWebhookSecret();
    sink = await startWebhookSink(secret, (e) => {
      events.push({ type: e.type, data: e.data });
      breaches.push(...webhookBreaches(e.body));
    });
    Object.assign(emu, await startInProcessEmulator({ ...options, webhooks: { url: sink.url, secret } }));
  });
  afterAll(async () => {
    await emu.close?.();
    await sink?.close();
    expect(breaches).toEqual([]);
  });
  return { emu, events };
}
