import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";

// Every relative link in the README, docs/ (its decision records too) and the emulator package's pages
// (its README, CONTRIBUTING and GUIDE) leads somewhere: the file exists, and a
// `#fragment` into a Markdown file names one of its headings.
const markdownIn = (dir: string) =>
  readdirSync(dir)
    .filter((f) => f.endsWith(".md"))
    .map((f) => join(dir, f));
const pages = [
  "README.md",
  ...markdownIn("docs"),
  ...markdownIn("docs/decisions"),
  ...markdownIn("packages/clerk-emulator"),
];

/** GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens. */
const slug = (heading: string) =>
  heading
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");

function anchorsOf(file: string): Set<string> {
  const text = readFileSync(file, "utf8").replace(/```[\s\S]*?```/g, "");
  return new Set([...text.matchAll(/^#{1,6} (.+)$/gm)].map((m) => slug(m[1]!.replace(/`/g, ""))));
}

function relativeLinks(file: string): string[] {
  // Code blocks and inline code spans show links; they are not links.
  const text = readFileSync(file, "utf8")
    .replace(/```[\s\S]*?```/g, "")
    .replace(/`[^`\n]*`/g, "");
  return [...text.matchAll(/\]\(([^)\s]+)\)/g)].map((m) => m[1]!).filter((target) => !/^[a-z]+:/i.test(target));
}

function brokenLinks(page: string): string[] {
  return relativeLinks(page).filter((target) => {
    const [path, fragment] = target.split("#");
    const file = path ? join(dirname(page), path) : page;
    if (!existsSync(file)) return true;
    return fragment !== undefined && file.endsWith(".md") && !anchorsOf(file).has(fragment);
  });
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
