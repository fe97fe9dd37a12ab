import { formatWithOptions, inspect } from "node:util";
import { escapeLineBreaking, logLine } from "../app/lib/log.server";

type Level = "debug" | "info" | "warn" | "error" | "fatal";
type Fields = Record<string, unknown>;
type Write = (line: string) => void;

/**
 * Makes everything this process writes to stdout and stderr one JSON object
 * per line, as `logEvent`'s lines are: what Clerk's SDK, Express's default
 * error handler (finalhandler), Remix, React or Node print would otherwise be
 * free text, often several lines, carrying what a request carried (a path
 * with `%0d%0a` decoded, a header, an error's message) that could pass for
 * lines of their own. Called once at start, in keys mode (production):
 *
 * - `console.*` writes one line each: `event: "console"`, `level`, `message`
 *   and, for an error, `error`, `stack` and `details` as fields;
 * - Node's process warnings: `event: "warning"`, `component: "node"`;
 * - an uncaught exception: `event: "uncaught_exception"`, then exit 1, as Node would;
 * - anything else written to the two streams directly passes only as JSON
 *   object lines; other text becomes the `message` of an `event: "output"` line.
 */
export function installJsonConsole(): void {
  const stdout = guard(process.stdout, "info");
  const stderr = guard(process.stderr, "error");
  const methods: [keyof Console, Level, Write][] = [
    ["debug", "debug", stdout],
    ["log", "info", stdout],
    ["info", "info", stdout],
    ["warn", "warn", stderr],
    ["error", "error", stderr],
  ];
  for (const [method, level, write] of methods) {
    Object.assign(console, { [method]: (...args: unknown[]) => write(line(consoleRecord(level, args))) });
  }
  console.trace = function trace(...args: unknown[]) {
    const here = new Error(formatWithOptions({ breakLength: Infinity }, ...args));
    here.name = "Trace";
    Error.captureStackTrace(here, trace);
    stderr(line({ event: "console", level: "debug", message: here.message, stack: here.stack }));
  };
  console.dir = (value: unknown, options?: object) =>
    stdout(line({ event: "console", level: "info", message: inspect(value, { ...options, breakLength: Infinity }) }));

  // Node prints its warnings through a listener it adds at start, unless they
  // are turned off (--no-warnings, NODE_NO_WARNINGS=1): replaced, not added to.
  const nodePrinters = process.listeners("warning");
  if (nodePrinters.length > 0) {
    for (const printer of nodePrinters) process.off("warning", printer);
    const disabled = disabledWarnings();
    process.on("warning", (warning) => {
      const { code } = warning as { code?: string };
      if (disabled.has(warning.name) || (code !== undefined && disabled.has(code))) return;
      stderr(
        line({
          event: "warning",
          component: "node",
          code,
          ...errorFields(warning),
        }),
      );
    });
  }

  // Node would print the stack and its source line as free text, then exit 1.
  process.on("uncaughtException", (error, origin) => {
    stderr(line({ event: "uncaught_exception", level: "fatal", origin, ...errorFields(error) }));
    process.exit(1);
  });
}

/** What --disable-warning turns off (names or codes): Node's own printer checks it, so the one replacing it does. */
function disabledWarnings(): Set<string> {
  const args = [...process.execArgv, ...(process.env.NODE_OPTIONS ?? "").split(/\s+/)];
  const disabled = new Set<string>();
  args.forEach((arg, i) => {
    if (arg.startsWith("--disable-warning=")) disabled.add(arg.slice("--disable-warning=".length));
    else if (arg === "--disable-warning" && args[i + 1]) disabled.add(args[i + 1]!);
  });
  return disabled;
}

function line(record: Fields): string {
  return logLine({ time: new Date().toISOString(), ...record });
}

/**
 * Puts a guard on `stream.write`: JSON object lines pass (with what a line
 * reader could break at escaped), anything else is wrapped into one. Returns
 * the stream's own write, for lines made here.
 */
function guard(stream: NodeJS.WriteStream, level: Level): Write {
  const write = stream.write.bind(stream) as (chunk: string, callback?: (error?: Error | null) => void) => boolean;
  const guarded = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    const done = (typeof encoding === "function" ? encoding : callback) as ((error?: Error | null) => void) | undefined;
    const text =
      typeof chunk !== "string"
        ? Buffer.from(chunk as Uint8Array).toString("utf8")
        : typeof encoding === "string" && Buffer.isEncoding(encoding) && !/^utf-?8$/i.test(encoding)
          ? Buffer.from(chunk, encoding).toString("utf8")
          : chunk;
    if (text.trim() === "") {
      if (done) process.nextTick(done);
      return true;
    }
    return write(
      isJsonLines(text) ? escapeLineBreaking(text) : line({ event: "output", level, ...textFields(text) }),
      done,
    );
  };
  stream.write = guarded as typeof stream.write;
  return (text) => void write(text);
}

function isJsonLines(text: string): boolean {
  if (!text.endsWith("\n")) return false;
  return text
    .slice(0, -1)
    .split("\n")
    .every((candidate) => {
      if (!candidate.startsWith("{") || !candidate.endsWith("}")) return false;
      try {
        JSON.parse(candidate);
        return true;
      } catch {
        return false;
      }
    });
}

/** What a console call printed: its text as `message`, the first error's stack and details as fields. */
function consoleRecord(level: Level, args: unknown[]): Fields {
  const error = args.find((arg): arg is Error => arg instanceof Error);
  // An error is named in the message by its first line; its stack is a field.
  const shown = args.map((arg) =>
    arg instanceof Error ? { [inspect.custom]: () => `${arg.name}: ${arg.message}` } : arg,
  );
  const text = formatWithOptions({ breakLength: Infinity }, ...shown);
  if (!error) return { event: "console", level, ...textFields(text) };
  return {
    event: "console",
    level,
    message: text.trim(),
    error: error.name,
    stack: error.stack,
    details: detailsOf(error),
  };
}

/** Free text as fields: a stack trace printed as text (Express prints `err.stack`) goes to `stack`. */
function textFields(printed: string): Fields {
  const text = printed.trim();
  const frames = /\n\s+at /.exec(text);
  return frames ? { message: text.slice(0, frames.index), stack: text } : { message: text };
}

function errorFields(error: unknown): Fields {
  if (!(error instanceof Error)) return { message: inspect(error, { breakLength: Infinity }) };
  return { error: error.name, message: error.message, stack: error.stack, details: detailsOf(error) };
}

/** An error's own properties (Clerk's status, codes and messages), or nothing. */
function detailsOf(error: Error): string | undefined {
  const own = Object.fromEntries(Object.entries(error).filter(([, value]) => value !== undefined));
  return Object.keys(own).length > 0 ? inspect(own, { breakLength: Infinity, compact: true, depth: 4 }) : undefined;
}
