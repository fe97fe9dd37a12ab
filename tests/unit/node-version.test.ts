import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { PINNED_NODE } from "../../scripts/pinned-node.mjs";

// One Node for production: the image's, the one `npm test` runs the built server on, and within `engines`.
describe("the production Node", () => {
  const { version } = PINNED_NODE;

  it("is the Dockerfile's, in both stages", () => {
    const images = [...readFileSync("Dockerfile", "utf8").matchAll(/^FROM (\S+)/gm)].map((m) => m[1]);
    expect(images).toEqual([`node:${version}-bookworm-slim`, `node:${version}-bookworm-slim`]);
  });

  it("is an LTS line that package.json's engines accepts", () => {
    const [major] = version.split(".").map(Number);
    expect(major! % 2).toBe(0);
    const { engines } = JSON.parse(readFileSync("package.json", "utf8")) as { engines: { node: string } };
    const minimum = /^>=(\d+)\.(\d+)\.(\d+)$/.exec(engines.node)!.slice(1).map(Number);
    const pinned = version.split(".").map(Number);
    expect(pinned[0]! * 1e6 + pinned[1]! * 1e3 + pinned[2]!).toBeGreaterThanOrEqual(
      minimum[0]! * 1e6 + minimum[1]! * 1e3 + minimum[2]!,
    );
  });
});
