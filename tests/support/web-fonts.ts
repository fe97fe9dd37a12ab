/**
 * Run in the page (Playwright's or Puppeteer's `page.evaluate`): when the first contentful paint came,
 * and when the first web font (a `.woff2`) was asked for, in ms since navigation (app/lib/web-fonts.ts
 * holds a first visit's fonts until after that paint). Infinity for what did not happen.
 */
export function paintAndFirstFontRequest(): [number, number] {
  return [
    performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? Infinity,
    Math.min(
      ...performance
        .getEntriesByType("resource")
        .filter((entry) => entry.name.endsWith(".woff2"))
        .map((entry) => entry.startTime),
    ),
  ];
}
