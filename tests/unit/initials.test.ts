import { describe, expect, it } from "vitest";
import { initials } from "~/components/entity-avatar";

describe("initials", () => {
  it.each([
    ["Ada Lovelace", "AL"],
    ["Difference & Co", "DC"],
    ["guido van Rossum", "GV"],
    ["Ölçek", "Ö"],
    ["  ", "?"],
    ["— —", "?"],
  ])("%s → %s", (name, expected) => {
    expect(initials(name)).toBe(expected);
  });
});
