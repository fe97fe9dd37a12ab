import { mkdirSync, mkdtempSync, readdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, expect } from "vitest";
import { contractBreaches, readAnswers, type Answer } from "./openapi";

// Every server a test file starts (startServer, the production stack) records
// the emulator's answers here; after each test, the new ones are checked
// against Clerk's spec, so a mismatch fails the test that caused it.
const root = process.env.CLERK_CONTRACT_DIR ?? join(tmpdir(), "clerk-emulator-contract");
mkdirSync(root, { recursive: true });
const dir = mkdtempSync(join(root, "vitest-"));
process.env.CLERK_EMULATOR_RECORD_DIR = dir;

const offsets = new Map<string, number>();

/** The answers recorded since the last check, in every recording of this file's servers. */
function newAnswers(): Answer[] {
  return readdirSync(dir).flatMap((name) => {
    const file = join(dir, name);
    const { answers, next } = readAnswers(file, offsets.get(file) ?? 0);
    offsets.set(file, next);
    return answers;
  });
}

const expectContractKept = () =>
  expect(contractBreaches(newAnswers()).join("\n"), "emulator answers that break Clerk's published API").toBe("");

afterEach(expectContractKept);
afterAll(expectContractKept);
