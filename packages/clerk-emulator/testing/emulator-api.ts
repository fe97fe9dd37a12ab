import { randomBytes } from "node:crypto";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import type { ClerkEmulator, ClerkEmulatorOptions } from "../src";

export type ApiReply = { status: number; body: any; headers: Headers }; // eslint-disable-line @typescript-eslint/no-explicit-any -- Clerk's JSON, read by each test

async function reply(res: Response): Promise<ApiReply> {
  const json = (res.headers.get("content-type") ?? "").startsWith("application/json");
  return { status: res.status, body: json ? await res.json() : await res.text(), headers: res.headers };
}

export type BackendApi = (method: string, path: string, body?: Record<string, unknown>) => Promise<ApiReply>;

/**
 * Clerk's Backend API on an emulator mounted at `<origin>/__clerk`, called as
 * @clerk/backend calls it: JSON bodies, the instance's secret key as bearer.
 */
export function backendApi(origin: string, secretKey: string): BackendApi {
  return async (method, path, body) =>
    reply(
      await fetch(`${origin}/__clerk/api${path}`, {
        method,
        headers: { Authorization: `Bearer ${secretKey}`, "Content-Type": "application/json" },
        body: body ? JSON.stringify(body) : undefined,
      }),
    );
}

/**
 * One browser's view of Clerk's Frontend API, as clerk-js calls it: form
 * bodies, and the `__client` cookie kept between calls.
 */
export function frontendClient(origin: string) {
  let client = "";
  const call = async (method: string, path: string, form?: Record<string, string>) => {
    const res = await fetch(`${origin}/__clerk${path}`, {
      method,
      headers: {
        Cookie: client ? `__client=${client}` : "",
        ...(form ? { "Content-Type": "application/x-www-form-urlencoded" } : {}),
      },
      body: form ? new URLSearchParams(form).toString() : undefined,
      redirect: "manual",
    });
    for (const cookie of res.headers.getSetCookie()) {
      const match = /^__client=([^;]*)/.exec(cookie);
      if (match) client = match[1] ?? "";
    }
    return reply(res);
  };
  /** The browser's cookie header, for a request the test sends itself (an upload, say). */
  return Object.assign(call, { cookie: () => (client ? `__client=${client}` : "") });
}

/** A browser signed in with a password (a seeded person's, by default), its sign-in checked complete. */
export async function signedInBrowser(origin: string, identifier = "ada@example.com", password?: string) {
  const { DEMO_PASSWORD } = await import("../src");
  const browser = frontendClient(origin);
  const r = await browser("POST", "/v1/client/sign_ins", { identifier, password: password ?? DEMO_PASSWORD });
  if (r.body?.response?.status !== "complete")
    throw new Error(`${identifier} did not sign in: ${JSON.stringify(r.body)}`);
  return browser;
}

/**
 * Finishes a sign-in begun with an identifier alone (`started`, the answer to `POST /v1/client/sign_ins`)
 * by its emailed code, the test code 424242, as <SignIn/>'s email code step does: the code sent to the
 * address the sign-in offers, then tried. The attempt's answer.
 */
export async function finishSignInByEmailCode(
  browser: ReturnType<typeof frontendClient>,
  started: ApiReply,
): Promise<ApiReply> {
  const id = started.body.response.id as string;
  const factor = (
    started.body.response.supported_first_factors as { strategy: string; email_address_id: string }[]
  ).find((f) => f.strategy === "email_code");
  if (!factor) throw new Error(`the sign-in offers no email code: ${JSON.stringify(started.body)}`);
  await browser("POST", `/v1/client/sign_ins/${id}/prepare_first_factor`, {
    strategy: "email_code",
    email_address_id: factor.email_address_id,
  });
  return browser("POST", `/v1/client/sign_ins/${id}/attempt_first_factor`, { strategy: "email_code", code: "424242" });
}

/**
 * Arms one of the emulator's faults (tests only: its control API) for the
 * next calls of an endpoint ("bapi GET /v1/organizations/:id/memberships"…).
 */
export async function armFault(origin: string, fault: { endpoint: string; mode: string } & Record<string, unknown>) {
  const res = await fetch(`${origin}/__clerk/_emulator/faults`, {
    method: "POST",
    headers: { "Content-Type": "application/json" },
    body: JSON.stringify(fault),
  });
  if (res.status !== 200) throw new Error(`arming ${fault.endpoint} failed: ${res.status}`);
}

/**
 * Turns the instance's dashboard switches (tests only: its control API's PATCH /_emulator/instance),
 * in the keys of Clerk's environment JSON (`{ auth_config: { single_session_mode: false } }`…).
 */
export async function patchInstance(origin: string, settings: unknown): Promise<ApiReply> {
  return reply(
    await fetch(`${origin}/__clerk/_emulator/instance`, {
      method: "PATCH",
      headers: { "Content-Type": "application/json" },
      body: JSON.stringify(settings),
    }),
  );
}

/**
 * Resolves once every webhook the emulator has sent so far was accepted (or
 * given up on): what it said changed has been forgotten by then.
 */
export async function webhooksDelivered(origin: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const deliveries = (await (await fetch(`${origin}/__clerk/_emulator/webhooks`)).json()) as { status: string }[];
    if (!deliveries.some((d) => d.status === "pending")) return;
    if (Date.now() > deadline) throw new Error("the emulator's webhooks are still pending");
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** How many calls the emulator has answered, per endpoint ("bapi GET /v1/organizations/:id", …). */
export async function emulatorCalls(origin: string): Promise<Record<string, number>> {
  return (await (await fetch(`${origin}/__clerk/_emulator/calls`)).json()) as Record<string, number>;
}

/** Clerk's first error code in a reply, for assertions. */
export const errorCode = (r: ApiReply): string | undefined =>
  (r.body as { errors?: { code: string }[] }).errors?.[0]?.code;

let counter = 0;

/** A fresh address on each call, so tests sharing one emulator never meet. */
export const uniqueEmail = (name: string) =>
  `${name}.${Date.now().toString(36)}${(++counter).toString(36)}${process.pid}@example.com`;

export const TEAM_PASSWORD = "team-password-1";

/** A new person ("Name Tester", a unique address from `name`), made through the Backend API. */
export async function newPerson(bapi: BackendApi, name: string, password = TEAM_PASSWORD) {
  const email = uniqueEmail(name);
  const user = await bapi("POST", "/v1/users", {
    email_address: [email],
    password,
    first_name: name[0]!.toUpperCase() + name.slice(1),
    last_name: "Tester",
  });
  if (user.status !== 200) throw new Error(`creating ${email} failed: ${user.status}`);
  return { id: user.body.id as string, email };
}

/**
 * A new organization with a new admin and `members` plain members, made
 * through the Backend API as a Clerk app's test setup would. Everyone's
 * password is TEAM_PASSWORD.
 */
export async function newTeam(bapi: BackendApi, { members = 0 } = {}) {
  const person = (name: string) => newPerson(bapi, name);
  const admin = await person("admin");
  const org = await bapi("POST", "/v1/organizations", {
    name: `Team ${Date.now().toString(36)}${(++counter).toString(36)}${process.pid}`,
    created_by: admin.id,
  });
  const others = [];
  for (let i = 0; i < members; i++) {
    const member = await person(`member${i + 1}`);
    await bapi("POST", `/v1/organizations/${org.body.id}/memberships`, { user_id: member.id, role: "org:member" });
    others.push(member);
  }
  return {
    org: { id: org.body.id as string, slug: org.body.slug as string, name: org.body.name as string },
    admin,
    members: others,
  };
}

export type InProcessEmulator = {
  /** Where the emulator is mounted, as in local mode: `<origin>/__clerk/…`. */
  origin: string;
  emulator: ClerkEmulator;
  /** The Backend API with the instance's secret key, as `backendApi` calls it. */
  bapi: BackendApi;
  close(): Promise<void>;
};

/**
 * The emulator alone, in this process, mounted at `/__clerk` as local mode
 * mounts it: for tests of the emulator's own answers, without the app. Its
 * answers are recorded for the contract check like a server's.
 */
export async function startInProcessEmulator(
  options: Partial<Omit<ClerkEmulatorOptions, "dataDir" | "mountPath">> = {},
): Promise<InProcessEmulator> {
  const secretKey = options.secretKey ?? `sk_live_emulator_${randomBytes(12).toString("hex")}`;
  // Loaded here, not with the module: the emulator is about a hundred modules, and most tests that
  // import clerk-emulator/testing only call one over HTTP (about 0.8 s a test file, each in its own process).
  const [{ createClerkEmulator }, { default: express }] = await Promise.all([import("../src"), import("express")]);
  const emulator = createClerkEmulator({
    issuer: "https://clerk.emulator.invalid",
    recordDir: process.env.CLERK_EMULATOR_RECORD_DIR || undefined,
    ...options,
    dataDir: null,
    mountPath: "/__clerk",
    secretKey,
  });
  const app = express();
  app.use("/__clerk/_emulator", emulator.control);
  app.use("/__clerk", emulator.router);
  const server = createServer(app);
  // Longer than undici keeps an idle socket: on a busy machine its 4 s and Node's 5 s race, and the reused socket is reset.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const bapi = backendApi(origin, secretKey);
  return {
    origin,
    emulator,
    bapi,
    async close() {
      server.closeAllConnections();
      await new Promise((done) => server.close(done));
      emulator.close();
    },
  };
}
