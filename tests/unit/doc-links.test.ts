import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

// Every relative link in the README, docs/ (its decision records too) and the emulator package's pages
// (its README, CONTRIBUTING, GUIDE and the notes beside its files) leads somewhere: the file exists, and a
// `#fragment` into a Markdown file names one of its headings. And every repository path the pages name, in
// a link or in backticks, exists.
const markdownUnder = (dir: string): string[] =>
  readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "node_modules" ? [] : markdownUnder(path);
    return entry.name.endsWith(".md") ? [path] : [];
  });
const pages = ["README.md", ...markdownUnder("docs"), ...markdownUnder("packages/clerk-emulator")];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

/** A page's text without its fenced code blocks: what they show is code, not the page's links or paths. */
const prose = (file: string) => readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
const codeSpans = /`([^`\n]+)`/g;
const linkTargets = /\]\(([^)\s]+)\)/g;

function anchorsOf(file: string): Set<string> {
  const text = prose(file);
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ""))));
}

function relativeLinks(file: string): string[] {
  // Code blocks and inline code spans show links; they are not links.
  const text = prose(file).replace(codeSpans, "");
  return [...text.matchAll(linkTargets)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

function brokenLinks(page: string): string[] {
  return relativeLinks(page).filter((target) => {
    const [path, fragment] = target.split("#");
    const file = path ? join(dirname(page), path) : page;
    if (!existsSync(file)) return true;
    return fragment !== undefined && file.endsWith(".md") && !anchorsOf(file).has(fragment);
  });
}

/** The repository's top-level folders: a path that starts with one of them is a repository path. */
const TOP_FOLDERS = ["app", "server", "tests", "docs", "scripts", "bench", "packages", "patches", "public"];
/** Top-level folders that are gone: a path under one is a path from before a move (the emulator's, to packages/). */
const RETIRED_FOLDERS = ["emulator"];
/** Paths named on purpose though they no longer exist: history, kept as it was written. */
const HISTORICAL: Record<string, string[]> = {
  // The decision record of the move says where the emulator and its contract files were before it.
  "docs/decisions/0008-clerk-emulator-as-a-package.md": ["emulator/", "tests/contract/"],
};

/** A package's page may name its files from the package's folder (`src/…`, `tests/unit/…`) as well as from the root. */
const packageOf = (page: string) => /^(packages\/[^/]+)\//.exec(page)?.[1];
const foldersIn = (dir: string) =>
  readdirSync(dir, { withFileTypes: true })
    .filter((entry) => entry.isDirectory() && entry.name !== "node_modules")
    .map((entry) => entry.name);

/**
 * The repository paths a page names: in a link's target or a code span (each word of it, for commands),
 * with a `/` and either a file's extension or a trailing `/`, starting at a top-level folder (the page's
 * package's too). A link's text is named by its target, so a code span inside a link is not read again;
 * globs and placeholders (`*`, `{a,b}`, `<id>`, `…`) name no one file.
 */
function namedPaths(page: string): string[] {
  const pkg = packageOf(page);
  const roots = new Set([...TOP_FOLDERS, ...RETIRED_FOLDERS, ...(pkg ? foldersIn(pkg) : [])]);
  const text = prose(page);
  const words = [
    ...[...text.matchAll(linkTargets)].map((m) => m[1]!),
    ...[...text.replace(/\[[^\]\n]*\]\([^)\s]+\)/g, "").matchAll(codeSpans)].flatMap((m) => m[1]!.split(/\s+/)),
  ];
  return words
    .map((word) =>
      word
        .replace(/^[("'=]+/, "")
        .replace(/[#?].*$/, "")
        .replace(/[)"',.;]+$/, "")
        .replace(/:\d+(-\d+)?$/, ""),
    )
    .filter(
      (path) =>
        path.includes("/") &&
        (path.endsWith("/") || /\.[A-Za-z0-9]+$/.test(path)) &&
        !/[*{}<>…]/.test(path) &&
        roots.has(path.split("/")[0]!),
    );
}

function missingPaths(page: string): string[] {
  const pkg = packageOf(page);
  const historical = HISTORICAL[page] ?? [];
  return namedPaths(page).filter(
    (path) => !historical.includes(path) && !existsSync(path) && !(pkg && existsSync(join(pkg, path))),
  );
}

describe("links in the README, docs/ and the emulator package", () => {
  it.each(pages)("%s: every relative link resolves", (page) => {
    expect(brokenLinks(page)).toEqual([]);
  });

  it("a missing file or heading is a broken link", () => {
    const page = join(mkdtempSync(join(tmpdir(), "doc-links-")), "page.md");
    writeFileSync(
      page,
      "# A page\n\n## Upstream calls: the retry policy\n\n[ok](#upstream-calls-the-retry-policy) [web](https://example.com) [gone](missing.md) [no heading](#nowhere) [self](page.md#a-page) `[shown](shown.md)`\n",
    );
    expect(brokenLinks(page)).toEqual(["missing.md", "#nowhere"]);
  });
});

describe("repository paths named in the README, docs/ and the emulator package", () => {
  it.each(pages)("%s: every path it names exists", (page) => {
    expect(missingPaths(page)).toEqual([]);
  });

  it("the allowlist of historical paths names only pages that still name them, and paths that are gone", () => {
    for (const [page, paths] of Object.entries(HISTORICAL))
      for (const path of paths) {
        expect(namedPaths(page)).toContain(path);
        expect(existsSync(path)).toBe(false);
      }
  });

  it("a path from before a move, in a code span, a command or a link, is missing; globs, routes and URLs are not paths", () => {
    const dir = mkdtempSync(join(tmpdir(), "doc-paths-"));
    const page = join(dir, "page.md");
    writeFileSync(
      page,
      [
        "Gone: `emulator/store.ts`, `tests/unit/emulator-cli.test.ts:12`, [the store](emulator/state/store.ts).",
        "Run `npx vitest run tests/unit/gone.test.ts`.",
        "Here: `app/root.tsx`, `docs/decisions/`, `package.json`, [README](README.md).",
        "Not paths: `app/**/*.ts`, `docs/decisions/NNNN-<title>.md`, `/v1/users/:id`, `https://example.com/app/x.ts`, `node_modules/x/y.js`, [`packages/shared/src/x.ts`](https://github.com/clerk/javascript/blob/main/packages/shared/src/x.ts).",
        "```sh\nnpx vitest run tests/unit/in-a-block.test.ts\n```",
      ].join("\n"),
    );
    expect(missingPaths(page)).toEqual([
      "emulator/state/store.ts",
      "emulator/store.ts",
      "tests/unit/emulator-cli.test.ts",
      "tests/unit/gone.test.ts",
    ]);
  });
});
