import { describe, expect, it } from "vitest";
import { everyPageScripts } from "../../scripts/compile-hints.mjs";

// Remix's esbuild metafile, reduced to what the walk reads.
const metafile = {
  outputs: {
    "public/build/entry.client-A.js": {
      entryPoint: "app/entry.client.tsx",
      imports: [{ path: "public/build/_shared/react-dom-B.js", kind: "import-statement" }],
    },
    "public/build/root-C.js": {
      entryPoint: "browser-route-module:root.tsx?browser",
      imports: [
        { path: "public/build/_shared/react-dom-B.js", kind: "import-statement" },
        { path: "public/build/_shared/remix-D.js", kind: "import-statement" },
        { path: "public/build/_shared/posthog-E.js", kind: "dynamic-import" },
        { path: "public/build/_assets/radix-F.css", kind: "import-statement" },
      ],
    },
    "public/build/_shared/react-dom-B.js": { imports: [] },
    "public/build/_shared/remix-D.js": {
      imports: [{ path: "public/build/_shared/react-dom-B.js", kind: "import-statement" }],
    },
    "public/build/_shared/posthog-E.js": { imports: [] },
    "public/build/routes/members-G.js": {
      entryPoint: "browser-route-module:routes/orgs.$slug.members.tsx?browser",
      imports: [{ path: "public/build/_shared/form-H.js", kind: "import-statement" }],
    },
    "public/build/_shared/form-H.js": { imports: [] },
  },
};

describe("compile hints", () => {
  it("mark the entry, the root route and their static imports: what every page runs at start", () => {
    expect(everyPageScripts(metafile).sort()).toEqual([
      "public/build/_shared/react-dom-B.js",
      "public/build/_shared/remix-D.js",
      "public/build/entry.client-A.js",
      "public/build/root-C.js",
    ]);
  });

  it("refuse a build without the client entry or the root route", () => {
    const { "public/build/root-C.js": _root, ...withoutRoot } = metafile.outputs;
    expect(() => everyPageScripts({ outputs: withoutRoot })).toThrow(/missing/);
  });
});
