import type { Browser } from "@playwright/test";
import { CHROMIUM_ARGS, CHROMIUM_PATH } from "../support/chromium";
import {
  PUBLIC_HOST,
  startProductionStack,
  type ClusterProductionStack,
  type ProductionStack,
} from "../support/production-stack";
import { test } from "./fixtures";

/**
 * The production stack (nginx, two instances, Redis, a stand-in for Clerk)
 * for the calling test file, with a Chromium that resolves its public name
 * to loopback: started before the file's tests, stopped after them.
 */
export function useProductionStack(): { readonly stack: ProductionStack; readonly browser: Browser } {
  return useStack(() => startProductionStack());
}

/** The same, with `instances` instances sharing a Redis Cluster, and no browser (its tests speak HTTP). */
export function useClusterProductionStack(instances: number): { readonly stack: ClusterProductionStack } {
  return useStack(() => startProductionStack({ instances, redis: "cluster" }), { browser: false });
}

function useStack<Stack extends { stop(): Promise<void> }>(
  start: () => Promise<Stack>,
  { browser: withBrowser = true } = {},
): { readonly stack: Stack; readonly browser: Browser } {
  let stack: Stack | undefined;
  let browser: Browser | undefined;

  test.beforeAll(async ({ playwright }) => {
    test.setTimeout(90_000);
    stack = await start();
    if (!withBrowser) return;
    browser = await playwright.chromium.launch({
      executablePath: CHROMIUM_PATH,
      args: [...CHROMIUM_ARGS, `--host-resolver-rules=MAP ${PUBLIC_HOST} 127.0.0.1`],
    });
  });

  test.afterAll(async () => {
    await browser?.close();
    await stack?.stop();
  });

  const started = <T>(part: T | undefined) => {
    if (!part) throw new Error("the production stack is not started yet");
    return part;
  };
  return {
    get stack() {
      return started(stack);
    },
    get browser() {
      return started(browser);
    },
  };
}
