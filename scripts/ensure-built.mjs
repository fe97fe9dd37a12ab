// `npm start` on a fresh clone, or after `npm run dev` (whose build is a
// development one): build for production first.
import { execSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";

const built = existsSync("build/server.js") && existsSync("build/index.js");
// Remix writes the build's mode as a constant of the bundle.
const development = built && /\bmode = "development"/.test(readFileSync("build/index.js", "utf8"));
if (!built || development) {
  console.log(
    built
      ? "The build is `npm run dev`'s: building for production first."
      : "No build found: running `npm run build` first.",
  );
  execSync("npm run build", { stdio: "inherit" });
}
