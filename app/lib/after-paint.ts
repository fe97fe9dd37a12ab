import afterPaintStyles from "~/styles/after-paint.css";

/**
 * after-paint.css: Radix's rules for what only the lazily loaded parts render
 * (menus, the popover, the dialog) and the dark tokens a change of theme
 * without a reload needs. Nothing a page shows before hydration needs it, so
 * the document does not ask for it: a stylesheet the parser meets, even at the
 * body's end, counts as holding up the first paint (Lighthouse counts it, and
 * the scripts after it wait for it). The root puts its `<link>` in once
 * hydrated, and a part waits for it before it shows (`lazyPart`). Without
 * JavaScript nothing it styles can appear.
 */
export const AFTER_PAINT_STYLES = afterPaintStyles;

let markIn: () => void = () => undefined;

/** Resolves once after-paint.css has loaded, or failed to (a part is better shown plainly than not at all). */
export const afterPaintIn: Promise<void> = new Promise((resolve) => {
  markIn = resolve;
});

/** The `<link>`'s onLoad and onError. */
export function afterPaintSettled() {
  markIn();
}
