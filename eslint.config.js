import playwright from "eslint-plugin-playwright";
import reactHooks from "eslint-plugin-react-hooks";
import tseslint from "typescript-eslint";

// The emulator's API layer and what sits above it (its layer rules, below).
const apis = ["frontend", "backend", "webhooks", "control"];
const top = ["hosts", "index", "settings"];

export default tseslint.config(
  {
    ignores: [
      "build/**",
      "public/build/**",
      "bench/baseline/**",
      "bench/peer/**",
      // Its own app with its own node_modules, built and driven by tests/integration/fixture-core3.test.ts.
      "tests/fixtures/core3/**",
      // Clerk's Remix quickstart's shape, like bench/peer: driven by tests/integration/fixture-core2.test.ts.
      "tests/fixtures/core2/**",
      "**/.cache/**",
      "node_modules/**",
      "test-results/**",
      "playwright-report/**",
      "scripts/**",
      "packages/*/bin/**",
      // Plain Node scripts, as scripts/** above: no tsconfig takes them in.
      "packages/*/scripts/*.mjs",
      // What `npm pack` builds from the sources (packages/clerk-emulator/scripts/build.mjs).
      "packages/*/dist/**",
      "packages/clerk-emulator/testing/*.cjs",
      "app/**/*.cjs",
      "*.config.js",
    ],
  },
  ...tseslint.configs.recommended,
  {
    // Type-aware rules: a promise nobody awaits is a bug (or an assertion that cannot fail).
    languageOptions: { parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname } },
    rules: {
      "@typescript-eslint/no-floating-promises": "error",
      "@typescript-eslint/no-misused-promises": ["error", { checksVoidReturn: { attributes: false } }],
    },
  },
  {
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": [
        "error",
        { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" },
      ],
      "@typescript-eslint/no-require-imports": "off",
    },
  },
  {
    files: ["tests/e2e/**/*.ts"],
    ...playwright.configs["flat/recommended"],
    rules: {
      ...playwright.configs["flat/recommended"].rules,
      // Playwright fixtures call `use`, which is not React's.
      "react-hooks/rules-of-hooks": "off",
      // Some steps are conditional on the project (JavaScript on or off) by design.
      "playwright/no-conditional-in-test": "off",
      "playwright/no-conditional-expect": "off",
      // Absence can only be shown by outlasting PostHog's batch window (see analytics.spec.ts).
      "playwright/no-wait-for-timeout": "error",
    },
  },
  {
    files: ["tests/**/*.ts"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  {
    // Outside its own folder, the emulator is reached only by its name and what its package.json exports
    // ("clerk-emulator", "clerk-emulator/testing", "clerk-emulator/contract", ...): never by path, never its src/.
    files: ["**/*.{ts,tsx,js,mjs}"],
    ignores: ["packages/clerk-emulator/**", "app/**"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: [
            {
              group: [
                "**/packages/clerk-emulator",
                "**/packages/clerk-emulator/**",
                "clerk-emulator/src",
                "clerk-emulator/src/**",
              ],
              message:
                "Import the emulator by its exports: clerk-emulator, clerk-emulator/testing, clerk-emulator/contract.",
            },
          ],
        },
      ],
    },
  },
  {
    // Test doubles and the emulator never reach the app.
    files: ["app/**/*.{ts,tsx}"],
    rules: {
      "no-restricted-imports": [
        "error",
        {
          patterns: ["**/packages/**", "clerk-emulator", "clerk-emulator/*", "**/tests/**"],
          // rootAuthLoader and getAuth each check the session again; ~/lib/clerk/auth.server checks it once per request.
          paths: [
            {
              name: "@clerk/remix/ssr.server",
              message: "Use authenticate/getRequestAuth from ~/lib/clerk/auth.server.",
            },
            {
              name: "@radix-ui/themes",
              message:
                "Import from ~/components/ui: the package's index puts every component in the first-load JavaScript.",
            },
            // Clerk's React SDK from its ES modules only (app/lib/clerk/clerk-root.tsx): @clerk/remix is CommonJS,
            // which brings all of it into every page, and a second copy's contexts would not see the provider.
            {
              name: "@clerk/remix",
              message:
                "Import from @clerk/clerk-react (the root's provider is app/lib/clerk/clerk-root.tsx); on the server, @clerk/remix/api.server.",
            },
            {
              name: "@clerk/clerk-react",
              importNames: ["useOrganization", "useOrganizationList"],
              message:
                "Built on swr (about 6 KB gzip more on every page): read the organization in a loader, or follow clerk-js with useClerk().addListener.",
            },
            ...["@clerk/clerk-react/experimental", "@clerk/shared/react", "swr"].map((name) => ({
              name,
              message: "Clerk's hooks built on swr would put it in every page's first load (docs/performance.md).",
            })),
          ],
        },
      ],
    },
  },
  // The emulator's layers, one way down: state → domain → json → http (the kit the APIs share) → the APIs
  // (frontend, backend, the control API, webhooks) → settings.ts → index.ts (wiring them) → hosts/. Each folder
  // may import only the layers below it (types excepted: they vanish at run time); the four APIs never import
  // each other, and express stays above json/. packages/clerk-emulator/tests/support/layers.ts holds the order
  // and why; tests/unit/layers.test.ts checks the same, import circles too, and is seen to fail on planted trees.
  ...[
    ...Object.entries({
      // (apis and top, below: the folders each lower layer may not import)
      state: { above: ["domain", "json", "http", ...apis, ...top], express: false },
      domain: { above: ["json", "http", ...apis, ...top], express: false },
      json: { above: ["http", ...apis, ...top], express: false },
      http: { above: [...apis, ...top], express: true },
      frontend: { above: ["backend", "webhooks", "control", ...top], express: true },
      backend: { above: ["frontend", "webhooks", "control", ...top], express: true },
      webhooks: { above: ["frontend", "backend", "control", ...top], express: true },
      control: { above: ["frontend", "backend", "webhooks", ...top], express: true },
      "index.ts": { above: ["hosts"], express: true },
      "settings.ts": { above: ["hosts", "index"], express: false },
    }).map(([layer, { above, express }]) => {
      const root = "packages/clerk-emulator/src";
      const file = layer.endsWith(".ts");
      // From a nested file (src/http/kit/x.ts) another layer is ../../frontend: every depth up to four is named.
      const prefixes = file ? ["./"] : [1, 2, 3, 4].map((depth) => "../".repeat(depth));
      return {
        files: [file ? `${root}/${layer}` : `${root}/${layer}/**/*.ts`],
        rules: {
          "@typescript-eslint/no-restricted-imports": [
            "error",
            {
              patterns: [
                {
                  group: above.flatMap((folder) =>
                    prefixes.flatMap((prefix) => [`${prefix}${folder}`, `${prefix}${folder}/**`]),
                  ),
                  allowTypeImports: true,
                  message: `${layer} may import only the emulator's layers below it (state → domain → json → http → the APIs → settings → index → hosts); what two APIs share is domain.`,
                },
                ...(express
                  ? []
                  : [
                      {
                        group: ["express"],
                        message: "No express below the API layer: take plain values from the handler.",
                      },
                    ]),
              ],
            },
          ],
        },
      };
    }),
    {
      // Only the domain writes state, through store.write: the APIs, webhooks, the HTTP kit and the control API
      // call domain functions. The type already refuses writes into store.state and store.memory (DeepReadonly
      // outside store.write); these selectors also catch the store's own changes. (A record a handler got from a
      // look-up, store.user(id) or store.find, is not seen by either; review sees it.)
      files: [
        "packages/clerk-emulator/src/{frontend,backend,webhooks,http,control}/**/*.ts",
        "packages/clerk-emulator/src/index.ts",
      ],
      rules: {
        "no-restricted-syntax": [
          "error",
          ...[
            // The store's write and its own changes (as `store.write(…)` or `ctx.store.createClient()`).
            "CallExpression[callee.property.name=/^(write|createUser|createOrganization|addMembership|removeMembership|deleteUser|deleteOrganization|createClient|createSession|endSession|saveImage|deleteImage)$/]:matches([callee.object.name='store'], [callee.object.property.name='store'])",
            "AssignmentExpression > MemberExpression.left:has(MemberExpression[property.name='state'])",
            "CallExpression > MemberExpression.callee[property.name=/^(push|splice|unshift|pop|shift)$/]:has(MemberExpression[property.name='state'])",
          ].map((selector) => ({
            selector,
            message: "Only the domain writes state: call a domain function that uses store.write.",
          })),
        ],
      },
    },
  ],
  {
    // Code that runs in the browser: the first Intl.DateTimeFormat in a page costs ~45 ms of main thread.
    files: ["app/**/*.{ts,tsx}"],
    ignores: ["app/**/*.server.{ts,tsx}"],
    rules: {
      "no-restricted-syntax": [
        "error",
        {
          selector: "MemberExpression[object.name='Intl'][property.name='DateTimeFormat']",
          message: "Use formatDay from ~/lib/day: Intl's date formatting loads ICU data on the page's main thread.",
        },
        {
          selector: "CallExpression[callee.property.name=/^toLocale(Date|Time)?String$/]",
          message: "Use formatDay from ~/lib/day: Intl's date formatting loads ICU data on the page's main thread.",
        },
      ],
    },
  },
);
