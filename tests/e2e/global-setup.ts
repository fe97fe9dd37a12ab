import { startCaptureSink } from "../support/capture-sink";

/** Starts the capture sink the analytics server sends to; it lives as long as the test run. */
export default async function globalSetup() {
  const sink = await startCaptureSink(Number(new URL(process.env.E2E_SINK_ORIGIN!).port));
  return () => sink.close();
}
