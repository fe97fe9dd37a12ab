// clerk-emulator/contract: Clerk's published OpenAPI files and the check of
// recorded answers (and webhooks) against them, with the reasoned allowlist.
export {
  completeLength,
  contractBreaches,
  formatMismatch,
  loadContract,
  readAnswers,
  toJsonSchema,
  type Answer,
  type Api,
  type Contract,
  type Mismatch,
} from "./openapi";
export { webhookBreaches } from "./webhooks";
export { allowlist, type Excuse } from "./allowlist";
