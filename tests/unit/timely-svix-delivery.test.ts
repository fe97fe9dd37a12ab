import { describe, expect, it } from "vitest";
import { isTimelySvixDelivery } from "../../server/clerk-webhooks";

// What lets a request into the webhook's pool of request bodies (server/request-bodies.ts).
describe("isTimelySvixDelivery", () => {
  const now = Date.UTC(2026, 10, 27, 12);
  const seconds = now / 1000;
  const headers = (timestamp: number | string, extra: Record<string, string | undefined> = {}) => {
    const all: Record<string, string | undefined> = {
      "svix-id": "msg_1",
      "svix-timestamp": String(timestamp),
      "svix-signature": "v1,abc",
      ...extra,
    };
    return (name: string) => all[name];
  };

  it("admits Svix's three headers with a timestamp within 5 minutes either way", () => {
    expect(isTimelySvixDelivery(headers(seconds), now)).toBe(true);
    expect(isTimelySvixDelivery(headers(seconds - 300), now)).toBe(true);
    expect(isTimelySvixDelivery(headers(seconds + 300), now)).toBe(true);
  });

  it("refuses a timestamp past the tolerance, a malformed one, or a missing header", () => {
    expect(isTimelySvixDelivery(headers(seconds - 301), now)).toBe(false);
    expect(isTimelySvixDelivery(headers(seconds + 301), now)).toBe(false);
    expect(isTimelySvixDelivery(headers("1e9"), now)).toBe(false);
    expect(isTimelySvixDelivery(headers(""), now)).toBe(false);
    expect(isTimelySvixDelivery(headers(seconds, { "svix-id": undefined }), now)).toBe(false);
    expect(isTimelySvixDelivery(headers(seconds, { "svix-signature": "" }), now)).toBe(false);
  });
});
