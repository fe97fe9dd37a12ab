// `npm run dev` runs this under `remix dev`, which rebuilds the app on every
// edit under app/ and hands the browser its hot updates; the running server
// loads each new build itself (server/app-build.ts). This script bundles
// server.ts as `npm run build` does, runs it, and starts it again when an
// edit changes that bundle: server.ts, server/, or the emulator's package
// (packages/clerk-emulator/src), which the bundle takes in whole, so esbuild
// watches its files too. In local mode the emulator's state and the session's
// keys are in .data/: a restart keeps the browser signed in.
import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, watch, writeFileSync } from "node:fs";
import { dirname } from "node:path";
import { context } from "esbuild";
import { serverBundle } from "./build-server.mjs";

let server = null;
let starting = Promise.resolve();

function start() {
  server = spawn(process.execPath, [serverBundle.outfile], { stdio: "inherit" });
  console.log(`Server started (pid ${server.pid}).`);
  server.on("exit", (code, signal) => {
    if (signal === null && code !== 0)
      console.error(`The server stopped (exit code ${code}); it starts again on the next edit.`);
  });
}

/** Stops the running server (SIGTERM: it finishes open requests) and waits for it to exit. */
function stop() {
  const running = server;
  server = null;
  if (!running || running.exitCode !== null || running.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    running.once("exit", resolve);
    running.kill("SIGTERM");
  });
}

const restartOnChange = {
  name: "restart-on-change",
  setup(build) {
    build.onEnd(({ errors, outputFiles }) => {
      if (errors.length > 0) return;
      const [bundle] = outputFiles;
      let written = null;
      try {
        written = readFileSync(bundle.path, "utf8");
      } catch {}
      // app/ edits reach this bundle's inputs too (the env and load context
      // modules): restart only when the bundle itself changed.
      const restarting = server !== null;
      if (restarting && written === bundle.text) return;
      starting = starting.then(async () => {
        await stop();
        mkdirSync(dirname(bundle.path), { recursive: true });
        writeFileSync(bundle.path, bundle.text);
        if (restarting) console.log("The server's code changed: restarting it.");
        start();
      });
    });
  },
};

const watcher = await context({ ...serverBundle, write: false, plugins: [restartOnChange] });
await watcher.watch();

// A server that stopped (an app/ module that throws as it loads, say) starts
// again with remix dev's next build of the app, not only on a server edit.
let settle;
mkdirSync("build", { recursive: true });
watch("build", (_event, file) => {
  if (file !== "index.js" || server === null || server.exitCode === null) return;
  clearTimeout(settle);
  settle = setTimeout(() => {
    if (server?.exitCode === null) return;
    console.log("The app was rebuilt: starting the server again.");
    starting = starting.then(start);
  }, 100);
}).unref();

for (const signal of ["SIGTERM", "SIGINT"]) {
  process.on(signal, () => {
    void Promise.all([watcher.dispose(), stop()]).then(() => process.exit(0));
  });
}
