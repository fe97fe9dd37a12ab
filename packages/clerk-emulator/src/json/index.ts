/**
 * The one place that turns the emulator's records into Clerk's JSON, as
 * Clerk's OpenAPI description (API version 2025-11-10) has each shape for
 * each API. Timestamps are epoch ms. The tests check every answer against it.
 */
export * from "./common";
export * from "./organizations";
export * from "./roles";
export * from "./sessions";
export * from "./public-user-data";
export * from "./users";
export * from "./clients";
export * from "./waitlist";
