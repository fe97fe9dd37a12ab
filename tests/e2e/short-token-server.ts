import { startServer, type RunningServer } from "../support/server";
import { test } from "./fixtures";

/**
 * A server of the calling test file's own (one per worker), whose session
 * tokens live 5 seconds (the emulator's shortest), so tests can go past a
 * token's lifetime; started before the file's tests, stopped after them.
 */
export function useShortTokenServer(): Pick<RunningServer, "origin" | "dataDir"> {
  let server: RunningServer | undefined;

  test.beforeAll(async () => {
    server = await startServer({ CLERK_EMULATOR_TOKEN_TTL: "5", LOG_LEVEL: "silent" });
  });

  test.afterAll(async () => {
    await server?.stop();
  });

  const started = () => {
    if (!server) throw new Error("the short-token server is not started yet");
    return server;
  };
  return {
    get origin() {
      return started().origin;
    },
    get dataDir() {
      return started().dataDir;
    },
  };
}
