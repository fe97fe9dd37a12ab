// The suite's presets name Clerk's test instances by key ("with-email-codes", …) and read every key at
// load time (integration/presets/envs.ts); each emulator run is one instance, so every name gets its
// keys: prints INTEGRATION_INSTANCE_KEYS for <integration dir>, from PK and SK in the environment.
const { readFileSync, readdirSync } = require("node:fs");

const dir = process.argv[2];
const names = new Set();
for (const file of readdirSync(dir, { recursive: true }).filter((f) => f.endsWith(".ts")))
  for (const m of readFileSync(`${dir}/${file}`, "utf8").matchAll(
    /(?:withInstanceKeys\(\s*|instanceKeys\.get\(\s*)['"]([^'"]+)['"]/g,
  ))
    names.add(m[1]);
console.log(JSON.stringify(Object.fromEntries([...names].map((n) => [n, { pk: process.env.PK, sk: process.env.SK }]))));
