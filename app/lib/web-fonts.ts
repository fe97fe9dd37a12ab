/*
 * When the web fonts come (issue 70). The fonts are two files, 71 KB in all, that no first paint
 * needs: fonts.css gives every face a size-matched fallback, so text painted in it keeps its place
 * when the web font replaces it.
 *
 * - A browser that has them (the `fonts-kept` cookie, set once they have loaded here): the head
 *   preloads them, they come from its cache with the first paint's stylesheet, and nothing swaps.
 * - A first visit with JavaScript on: an inline script marks <html> (FONTS_WAIT), under which
 *   fonts.css names only the fallbacks, so nothing asks for the fonts. On a phone's network their
 *   70 KB would otherwise share the link with the stylesheet and the scripts the first paint waits
 *   for. The mark goes once the page has painted; on one of Clerk's screens, once Clerk's card is
 *   drawn (app/lib/clerk-first.ts). The script then loads both faces and sets the cookie.
 * - Without JavaScript: no mark, no preload; the stylesheet's fonts come as the page uses them.
 */

/**
 * On <html>, the attribute that holds the web fonts back (fonts.css names only the fallbacks under it).
 * Its value says what lifts it: `first-paint`, this file's script; `clerk-screen`, app/lib/clerk-first.ts.
 */
export const FONTS_WAIT = "data-fonts-wait";

/** What a first visit's fonts wait for: the page's first contentful paint, or Clerk's card drawn. */
export type FontsHold = "first-paint" | "clerk-screen";

/** The cookie that says this browser has loaded the web fonts (so has them in its cache). */
const FONTS_KEPT = "fonts-kept";
/** A year, as long as the build's files are cached (their names change with their content). */
const KEPT_FOR_S = 365 * 24 * 60 * 60;

/** The faces whose files the head preloads (app/components/fonts.tsx), as `document.fonts.load` names them. */
const FACES = ['1em "Inter Variable"', '1em "Space Grotesk Variable"'];

/** Whether the request's browser has loaded the web fonts before (its `fonts-kept` cookie). */
export function fontsKept(cookieHeader: string | null): boolean {
  return (cookieHeader ?? "").split(";").some((pair) => pair.trim() === `${FONTS_KEPT}=1`);
}

/**
 * The inline script that holds the fonts back on a first visit (see above): it marks <html>, and once
 * the mark goes loads both faces and, if both loaded, sets the cookie. Holding until `first-paint`, it
 * lifts the mark itself, once the browser reports the first contentful paint (a frame's callback can run
 * before it: the first frames may paint nothing yet); where no paint is reported (a browser without
 * paint timing, a page loaded in a background tab), 3 s after the page's load. Until `clerk-screen`,
 * clerk-first.ts lifts it when Clerk's card is drawn.
 */
export function holdFontsScript(until: FontsHold): string {
  const cookie = `${FONTS_KEPT}=1; Max-Age=${KEPT_FOR_S}; Path=/; SameSite=Lax`;
  const setCookie = `document.cookie=${JSON.stringify(cookie)}+(location.protocol==="https:"?"; Secure":"")`;
  const loadFaces = `Promise.all(${JSON.stringify(FACES)}.map(function(f){return document.fonts.load(f)})).then(function(l){if(l.every(function(x){return x.length}))${setCookie}},function(){})`;
  const liftAfterPaint =
    `function go(){d.removeAttribute(w)}addEventListener("load",function(){setTimeout(go,3000)});` +
    `try{var p=new PerformanceObserver(function(l){if(l.getEntriesByName("first-contentful-paint").length){p.disconnect();go()}});p.observe({type:"paint",buffered:true})}catch(e){}`;
  return (
    `(function(d,w){d.setAttribute(w,${JSON.stringify(until)});new MutationObserver(function(_,o){if(d.hasAttribute(w))return;o.disconnect();${loadFaces}}).observe(d,{attributes:true,attributeFilter:[w]});` +
    `${until === "first-paint" ? liftAfterPaint : ""}})(document.documentElement,${JSON.stringify(FONTS_WAIT)})`
  );
}
