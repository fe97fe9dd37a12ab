import { readFileSync } from "node:fs";
import { join } from "node:path";
import { backendApi as backendApiWithKey } from "clerk-emulator/testing";

export {
  armFault,
  emulatorCalls,
  errorCode,
  frontendClient,
  newPerson,
  newTeam,
  startInProcessEmulator,
  TEAM_PASSWORD,
  uniqueEmail,
  webhooksDelivered,
  type ApiReply,
  type InProcessEmulator,
} from "clerk-emulator/testing";

/** The local-mode secret key the server made in its data folder (what a Clerk app's CLERK_SECRET_KEY holds). */
export function emulatorSecretKey(dataDir: string): string {
  return `sk_live_emulator_${readFileSync(join(dataDir, "clerk-emulator-secret"), "utf8").trim()}`;
}

/** Clerk's Backend API on the local-mode emulator of a server whose data folder is `dataDir`. */
export const backendApi = (origin: string, dataDir: string) => backendApiWithKey(origin, emulatorSecretKey(dataDir));
