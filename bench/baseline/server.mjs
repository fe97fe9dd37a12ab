// The server of the bench's reference apps (the baseline here, the peer with
// APP_DIR=../peer): the same process setup as ours (express, compression,
// static build output, Remix's express adapter), and nothing else.
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createRequestHandler } from "@remix-run/express";
import compression from "compression";
import express from "express";

process.env.NODE_ENV ||= "production";
const root = resolve(dirname(fileURLToPath(import.meta.url)), process.env.APP_DIR ?? ".");
const build = await import(join(root, "build", "index.js"));
const app = express();
app.disable("x-powered-by");
app.use(compression());
app.use("/build", express.static(join(root, "public", "build"), { immutable: true, maxAge: "1y" }));
app.all("*", createRequestHandler({ build, mode: "production" }));
app.listen(Number(process.env.PORT ?? 3100), "127.0.0.1");
// Stopped by a signal, it exits as a program does, so that `--cpu-prof` (bench/profile.ts) writes its profile.
for (const signal of ["SIGTERM", "SIGINT"]) process.once(signal, () => process.exit(0));
