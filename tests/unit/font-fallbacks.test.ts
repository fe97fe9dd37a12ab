import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import arial from "@capsizecss/metrics/arial";
import inter from "@capsizecss/metrics/inter";
import spaceGrotesk from "@capsizecss/metrics/spaceGrotesk";
import { describe, expect, it } from "vitest";

type Metrics = { ascent: number; descent: number; lineGap: number; unitsPerEm: number; xWidthAvg: number };

/** The overrides that make Arial occupy the same space as the web font. */
function fallbackOverrides(font: Metrics, fallback: Metrics) {
  const sizeAdjust = font.xWidthAvg / font.unitsPerEm / (fallback.xWidthAvg / fallback.unitsPerEm);
  return {
    "size-adjust": sizeAdjust * 100,
    "ascent-override": (font.ascent / font.unitsPerEm / sizeAdjust) * 100,
    "descent-override": (Math.abs(font.descent) / font.unitsPerEm / sizeAdjust) * 100,
    "line-gap-override": (font.lineGap / font.unitsPerEm / sizeAdjust) * 100,
  };
}

const css = readFileSync(resolve(import.meta.dirname, "../../app/styles/fonts.css"), "utf8");

function declaredOverrides(family: string): Record<string, number> {
  const block = css.split("@font-face").find((b) => b.includes(`font-family: "${family}"`));
  if (!block) throw new Error(`no @font-face for ${family}`);
  return Object.fromEntries(
    [...block.matchAll(/([a-z-]+(?:adjust|override)):\s*([\d.]+)%/g)].map((m) => [m[1], Number(m[2])]),
  );
}

describe("metric-matched font fallbacks", () => {
  it.each([
    ["Inter Fallback", inter],
    ["Space Grotesk Fallback", spaceGrotesk],
  ])("%s matches the web font's metrics", (family, metrics) => {
    const expected = fallbackOverrides(metrics, arial);
    const declared = declaredOverrides(family);
    for (const [property, value] of Object.entries(expected)) {
      expect(declared[property], property).toBeCloseTo(value, 3);
    }
  });

  it("loads the web fonts with font-display: swap", () => {
    const faces = css.split("@font-face").filter((b) => b.includes("woff2"));
    expect(faces.length).toBe(4);
    for (const face of faces) expect(face).toContain("font-display: swap");
  });
});
