import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startStandaloneEmulator, type GroupChild, type StandaloneEmulator } from "clerk-emulator/testing";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { spawnGroup, stopGroup, waitForPort } from "../support/process-group";
import { clerkProxyLocation, nginxConfigHead } from "../support/production-stack";
import { freePort, ROOT, startServer, type RunningServer } from "../support/server";

// Security finding: through the documented nginx rule for /__clerk, the emulator's control API gave
// anyone its state (every user, every __client id, pending handshake tokens) and a signed-in session.
// Here Debian's nginx (as tests/e2e/production.spec.ts runs it) serves the very rules this repository
// ships and documents: the production stack's (tests/support/production-stack.ts, in front of a
// local-mode server standing in for Clerk), the guide's (packages/clerk-emulator/GUIDE.md, read from
// the guide itself, in front of `npm run emulator -- --control`), and a rule that forgot the block,
// where the emulator refuses the forwarded request itself.
const GUIDE = join(ROOT, "packages/clerk-emulator/GUIDE.md");
const DEPLOYMENT = join(ROOT, "docs/deployment.md");

/** The access log format docs/deployment.md gives for the app's proxy. */
function documentedLogFormat(): string {
  const line = readFileSync(DEPLOYMENT, "utf8")
    .split("\n")
    .find((l) => l.startsWith("log_format teamwork_paths "));
  if (!line) throw new Error("docs/deployment.md has no log_format teamwork_paths line");
  return line;
}

/** The guide's nginx rule, pointed at `port` instead of the guide's 4000. */
function guideRule(port: number): string {
  const block = [...readFileSync(GUIDE, "utf8").matchAll(/```nginx\n([\s\S]*?)```/g)]
    .map((m) => m[1]!)
    .find((text) => text.includes("location /__clerk/"));
  if (!block) throw new Error("GUIDE.md has no nginx block for /__clerk/");
  expect(block).toContain("http://127.0.0.1:4000/");
  return block.replaceAll("127.0.0.1:4000", `127.0.0.1:${port}`);
}

/** The production stack's rule without its control API block: what the emulator itself must refuse. */
function ruleWithoutBlock(port: number): string {
  const rule = clerkProxyLocation(port);
  const bare = rule.replace(/^\s*location ~\*.*_emulator.*$/m, "");
  expect(bare).not.toBe(rule);
  return bare;
}

let clerk: RunningServer | undefined;
let standalone: StandaloneEmulator | undefined;
let nginx: GroupChild | null = null;
const ports = { shipped: 0, guide: 0, bare: 0, logged: 0 };
let accessLog = "";

beforeAll(async () => {
  [clerk, standalone] = await Promise.all([
    startServer({ LOG_LEVEL: "silent" }),
    startStandaloneEmulator(["--control"]),
  ]);
  Object.assign(ports, {
    shipped: await freePort(),
    guide: await freePort(),
    bare: await freePort(),
    logged: await freePort(),
  });
  const dir = mkdtempSync(join(tmpdir(), "teamwork-nginx-"));
  accessLog = join(dir, "access.log");
  // nginx's workers (nobody, when started as root) write their temp files here.
  chmodSync(dir, 0o777);
  const server = (port: number, location: string) => `
  server {
    listen 127.0.0.1:${port};
    ${location}
  }`;
  writeFileSync(
    join(dir, "nginx.conf"),
    `${nginxConfigHead(dir, 64)}
  ${server(ports.shipped, clerkProxyLocation(clerk.port))}
  ${server(ports.guide, guideRule(Number(new URL(standalone.url).port)))}
  ${server(ports.bare, ruleWithoutBlock(clerk.port))}
  ${documentedLogFormat()}
  server {
    listen 127.0.0.1:${ports.logged};
    access_log ${accessLog} teamwork_paths;
    location / { proxy_pass http://127.0.0.1:${clerk.port}; proxy_set_header Host 127.0.0.1:${clerk.port}; }
  }
}
`,
  );
  nginx = spawnGroup("nginx", ["-p", dir, "-c", join(dir, "nginx.conf"), "-g", "daemon off;"], dir);
  await Promise.all(Object.values(ports).map((port) => waitForPort(port, `nginx (${nginx?.output() ?? ""})`)));
});

afterAll(async () => {
  await stopGroup(nginx, "SIGQUIT");
  await standalone?.stop();
  expect(await clerk?.stop()).toBe(0);
});

/** A request to nginx with its path exactly as written (fetch would tidy `//` and `/./`). */
function viaNginx(port: number, path: string, method = "GET") {
  return new Promise<{ status: number; body: string }>((resolve, reject) => {
    const body = method === "POST" ? JSON.stringify({ email: "ada@example.com" }) : undefined;
    const req = request(
      { host: "127.0.0.1", port, path, method, headers: body ? { "Content-Type": "application/json" } : {} },
      (res) => {
        let text = "";
        res.on("data", (chunk: Buffer) => (text += chunk.toString()));
        res.on("end", () => resolve({ status: res.statusCode!, body: text }));
      },
    );
    req.once("error", reject);
    req.end(body);
  });
}

/** The control API as an outsider would try it through the proxy: the plain path and the tricks nginx normalises. */
const CONTROL_PATHS = [
  "/__clerk/_emulator/state",
  "/__clerk/_EMULATOR/state",
  "/__clerk//_emulator/state",
  "/__clerk/./_emulator/state",
  "/__clerk/%5Femulator/state",
  "/__clerk/x/../_emulator/state",
];

describe.each([
  ["the production stack's rule (tests/support/production-stack.ts)", "shipped"],
  ["the guide's nginx rule (GUIDE.md)", "guide"],
] as const)("%s", (_name, which) => {
  it("sends the control API nowhere: a 404 from nginx, however the path is written", async () => {
    for (const path of CONTROL_PATHS) {
      const res = await viaNginx(ports[which], path);
      expect([path, res.status]).toEqual([path, 404]);
      expect(res.body).not.toContain("ada@example.com");
    }
    const session = await viaNginx(ports[which], "/__clerk/_emulator/sessions", "POST");
    expect(session.status).toBe(404);
    expect(session.body).not.toContain("sessionToken");
  });

  it("still proxies Clerk's Frontend API", async () => {
    expect((await viaNginx(ports[which], "/__clerk/v1/environment")).status).toBe(200);
  });
});

describe("a proxy rule that forgot the block", () => {
  it("reaches the emulator, which refuses the forwarded request with a 403 that says why", async () => {
    for (const [path, method] of [
      ["/__clerk/_emulator/state", "GET"],
      ["/__clerk/_EMULATOR/state", "GET"],
      ["/__clerk/_emulator/sessions", "POST"],
    ] as const) {
      const res = await viaNginx(ports.bare, path, method);
      expect([path, res.status]).toEqual([path, 403]);
      expect(JSON.parse(res.body)).toMatchObject({ errors: [{ code: "control_api_direct_only" }] });
      expect(res.body).not.toMatch(/ada@example\.com|sessionToken/);
    }
  });
});

describe("the control API called straight, as tests call it", () => {
  it("still answers on the app's own origin and on the standalone emulator's", async () => {
    expect((await fetch(`${clerk!.origin}/__clerk/_emulator/state`)).status).toBe(200);
    expect((await fetch(`${standalone!.url}/_emulator/state`)).status).toBe(200);
  });
});

describe("the access log docs/deployment.md gives", () => {
  it("keeps no handshake token, nonce, dev-browser token or session cookie of a handshake's return", async () => {
    const secrets = [
      "hsn_secretnonce0001",
      "eyJsecret.handshake.token",
      "dvb_secretdevbrowser",
      "eyJsession.secret.value",
    ];
    const query = new URLSearchParams({
      __clerk_handshake_nonce: secrets[0]!,
      __clerk_handshake: secrets[1]!,
      __clerk_db_jwt: secrets[2]!,
      __session: secrets[3]!,
    });
    const res = await viaNginx(ports.logged, `/orgs?${query}`);
    expect(res.status).toBeLessThan(500);
    // nginx writes its line when the answer is sent: wait for it.
    let log = "";
    for (let i = 0; i < 50 && !log.includes("/orgs"); i++) {
      await new Promise((r) => setTimeout(r, 100));
      log = readFileSync(accessLog, "utf8");
    }
    expect(log).toContain("GET /orgs HTTP/1.1");
    for (const secret of secrets) expect(log).not.toContain(secret);
  });
});
