import { connect, type Socket } from "node:net";
import { readFileSync } from "node:fs";
import type { RunningServer } from "./server";

/** What a raw request got back: the status line's code ("closed" if the connection ended without one) and all it read. */
export type Answer = { status: number | "closed"; afterMs: number; text: string };

/**
 * A POST whose body is sent by hand: `sent` of its `declared` bytes at
 * once, more with `send`, never all of it. `answered` is set once a status
 * line (or the end of the connection) has come; `closed` resolves with
 * everything read once the connection is over.
 */
export type StalledPost = {
  socket: Socket;
  answer: Promise<Answer>;
  answered: Answer | null;
  closed: Promise<Answer>;
  /** Sends `bytes` more of the body, stopping one byte short of what was declared. */
  send(bytes: number): void;
};

// One buffer for every body sent: the test's own memory is not what is measured.
const filler = Buffer.alloc(1_000_000, "a");

export function stalledPost(
  /** The server's port is all it needs: a test's server, or the bench's instance. */
  server: Pick<RunningServer, "port">,
  {
    path,
    client,
    declared,
    sent,
    type = "application/x-www-form-urlencoded",
    headers = {},
  }: {
    path: string;
    /** The client's address, as a trusted proxy would forward it (X-Forwarded-For). */
    client: string;
    declared: number;
    sent: number;
    type?: string;
    headers?: Record<string, string>;
  },
): StalledPost {
  const started = Date.now();
  const socket = connect(server.port, "127.0.0.1");
  socket.on("error", () => undefined);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join("");
  let written = Math.min(sent, declared - 1);
  // Head and first bytes in one send (corked, not copied): all of it is read with the head, so a
  // refusal that closes without reading the rest leaves nothing unread (a clean close, not a reset).
  socket.cork();
  socket.write(
    `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${server.port}\r\nContent-Type: ${type}\r\n` +
      `Content-Length: ${declared}\r\nX-Forwarded-For: ${client}\r\n${extra}\r\n`,
  );
  if (written > 0) socket.write(filler.subarray(0, written));
  socket.uncork();
  let text = "";
  const post: StalledPost = {
    socket,
    answered: null,
    answer: new Promise<Answer>((resolve) => {
      const settle = (status: Answer["status"]) => {
        post.answered ??= { status, afterMs: Date.now() - started, text };
        resolve(post.answered);
      };
      socket.on("data", (chunk: Buffer) => {
        text += chunk.toString("latin1");
        const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
        if (status) settle(Number(status[1]));
      });
      socket.on("close", () => settle("closed"));
    }),
    closed: new Promise<Answer>((resolve) =>
      socket.on("close", () => {
        const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
        resolve({ status: status ? Number(status[1]) : "closed", afterMs: Date.now() - started, text });
      }),
    ),
    send(bytes) {
      const more = Math.min(bytes, declared - 1 - written);
      if (more <= 0 || post.answered || !socket.writable) return;
      socket.write(filler.subarray(0, more));
      written += more;
    },
  };
  return post;
}

/** Sends each post still unanswered `bytesPerSecond` more, in quarter-second steps, until stopped. */
export function drip(posts: StalledPost[], bytesPerSecond: number): () => void {
  const timer = setInterval(() => {
    for (const post of posts) post.send(Math.ceil(bytesPerSecond / 4));
  }, 250);
  return () => clearInterval(timer);
}

/** Resolves once every post's socket is connected (or has failed). */
export function connected(posts: StalledPost[]): Promise<unknown> {
  return Promise.all(
    posts.map(
      ({ socket }) =>
        socket.connecting &&
        new Promise((done) => {
          socket.once("connect", done);
          socket.once("close", done);
        }),
    ),
  );
}

/** The header's value in a raw answer's head, or null. */
export function headerOf(answer: Answer, name: string): string | null {
  const head = answer.text.split("\r\n\r\n")[0] ?? "";
  const line = head.split("\r\n").find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line ? line.slice(line.indexOf(":") + 1).trim() : null;
}

/** The server process's resident memory, in MB. */
export function rssMb(server: Pick<RunningServer, "child">): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, "utf8");
  return Number(/^VmRSS:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

/**
 * A POST of `body` (a form) sent whole but slowly, `bytesPerSecond` in
 * quarter-second steps: resolves with its answer.
 */
export function tricklePost(
  server: Pick<RunningServer, "port">,
  { path, client, body, bytesPerSecond }: { path: string; client: string; body: string; bytesPerSecond: number },
): StalledPost {
  const bytes = Buffer.from(body);
  const post = stalledPost(server, { path, client, declared: bytes.length, sent: 0 });
  let written = 0;
  const timer = setInterval(() => {
    if (post.answered || !post.socket.writable || written >= bytes.length) return clearInterval(timer);
    const step = bytes.subarray(written, written + Math.ceil(bytesPerSecond / 4));
    post.socket.write(step);
    written += step.length;
  }, 250);
  post.socket.once("close", () => clearInterval(timer));
  return post;
}
