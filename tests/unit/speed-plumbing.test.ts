import { createHash, sign } from "node:crypto";
import { readdirSync, readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { NextFunction, Request, Response } from "express";
import { describe, expect, it, vi } from "vitest";
import { createServerTiming } from "../../app/lib/http/server-timing.server";
import { coalesceFlushes, coalesceWrites } from "../../server/compress";

const ROOT = resolve(import.meta.dirname, "../..");
const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

describe("coalesced flushes", () => {
  function responseWithFlush() {
    const flush = vi.fn();
    const res = { flush, writableEnded: false } as unknown as Response & { flush: () => void; writableEnded: boolean };
    coalesceFlushes({} as Request, res, (() => undefined) as NextFunction);
    return { res, flush };
  }

  it("a burst of chunk flushes in one turn of the event loop costs one zlib flush", async () => {
    const { res, flush } = responseWithFlush();
    for (let i = 0; i < 14; i++) res.flush();
    expect(flush).not.toHaveBeenCalled();
    await nextTurn();
    expect(flush).toHaveBeenCalledTimes(1);
    // A later chunk (deferred data) is flushed on its own turn.
    res.flush();
    await nextTurn();
    expect(flush).toHaveBeenCalledTimes(2);
  });

  it("nothing is flushed once the response has ended", async () => {
    const { res, flush } = responseWithFlush();
    res.flush();
    res.writableEnded = true;
    await nextTurn();
    expect(flush).not.toHaveBeenCalled();
  });
});

describe("coalesced writes", () => {
  function responseWithWrites() {
    const sent: string[] = [];
    const write = vi.fn((chunk: Buffer, ...rest: unknown[]) => {
      sent.push(chunk.toString());
      const callback = rest.find((x) => typeof x === "function") as (() => void) | undefined;
      callback?.();
      return true;
    });
    const end = vi.fn((chunk?: Buffer | (() => void)) => {
      if (chunk && typeof chunk !== "function") sent.push(`end:${chunk.toString()}`);
      else sent.push("end");
    });
    const res = { write, end, destroyed: false, writableNeedDrain: false } as unknown as Response;
    coalesceWrites({} as Request, res, (() => undefined) as NextFunction);
    return { res, write, end, sent };
  }

  it("a burst of writes in one turn of the event loop goes on as one write, in order", async () => {
    const { res, write, sent } = responseWithWrites();
    res.write("<!DOCTYPE html>");
    res.write(new TextEncoder().encode("<html>"));
    res.write("é", "utf8");
    expect(write).not.toHaveBeenCalled();
    await nextTurn();
    expect(sent).toEqual(["<!DOCTYPE html><html>é"]);
    // A chunk that comes later (deferred data) goes out on its own turn, before the response ends.
    res.write("<script>late</script>");
    await nextTurn();
    expect(sent).toEqual(["<!DOCTYPE html><html>é", "<script>late</script>"]);
  });

  it("ending the response sends what is pending with the last chunk, once", async () => {
    const { res, write, sent } = responseWithWrites();
    res.write("a");
    res.write("b");
    res.end("c");
    await nextTurn();
    expect(write).not.toHaveBeenCalled();
    expect(sent).toEqual(["end:abc"]);
  });

  it("a write that asks to be told when it is handed on is not held back, and keeps its order", () => {
    const { res, sent } = responseWithWrites();
    const done = vi.fn();
    res.write("a");
    res.write("b", done);
    expect(sent).toEqual(["a", "b"]);
    expect(done).toHaveBeenCalled();
  });

  it("nothing pending is written to a response already destroyed", async () => {
    const { res, write } = responseWithWrites();
    res.write("a");
    (res as unknown as { destroyed: boolean }).destroyed = true;
    await nextTurn();
    expect(write).not.toHaveBeenCalled();
  });
});

describe("Server-Timing", () => {
  it("sums each metric's calls and adds the extra ones", async () => {
    let clock = 0;
    const timing = createServerTiming(() => clock);
    await timing.time("upstream", async () => {
      clock += 40;
    });
    await timing.time("upstream", async () => {
      clock += 2.5;
    });
    await timing.time("auth", async () => {
      clock += 3;
    });
    await expect(
      timing.time("auth", async () => {
        clock += 1;
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(timing.header({ render: 7.25 })).toBe(
      'upstream;dur=42.5;desc="2 calls", auth;dur=4.0;desc="2 calls", render;dur=7.3',
    );
    expect(createServerTiming().header()).toBe("");
  });
});

describe("Radix Themes, patched (patches/, applied by npm's postinstall)", () => {
  it("imports each primitive from its own package, never the radix-ui umbrella (which keeps menus in the first load)", () => {
    const dir = join(ROOT, "node_modules/@radix-ui/themes/dist/esm/components");
    const modules = readdirSync(dir).filter((f) => f.endsWith(".js"));
    const umbrella = modules.filter((f) => readFileSync(join(dir, f), "utf8").includes('from"radix-ui'));
    expect(umbrella).toEqual([]);
    expect(readFileSync(join(dir, "dropdown-menu.js"), "utf8")).toContain('from"@radix-ui/react-dropdown-menu"');
  });
});

/**
 * The files a browser bundle of `contents` (TypeScript, imports resolved from
 * the repository's root) takes code from: esbuild lists every file it
 * resolved as an input, kept or shaken off; these are the kept ones.
 */
async function browserBundleInputs(contents: string): Promise<string[]> {
  const { build } = await import("esbuild");
  const result = await build({
    stdin: { contents, resolveDir: ROOT, loader: "ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform: "browser",
    external: ["react", "react-dom"],
    metafile: true,
    logLevel: "silent",
  });
  return Object.values(result.metafile.outputs).flatMap(({ inputs }) =>
    Object.entries(inputs).flatMap(([path, { bytesInOutput }]) => (bytesInOutput > 0 ? [path] : [])),
  );
}

describe("Clerk's React SDK, patched (patches/@clerk+shared)", () => {
  it("brings no swr into the browser's bundle of what the app uses (lint refuses the hooks built on it)", async () => {
    const inputs = await browserBundleInputs(
      'import { ClerkProvider, ClerkLoading, SignIn, useAuth, useClerk } from "@clerk/clerk-react";' +
        "console.log(ClerkProvider, ClerkLoading, SignIn, useAuth, useClerk);",
    );
    // Clerk's ES modules, which esbuild can tree-shake (@clerk/remix is CommonJS: it would bring all of it).
    expect(inputs.some((path) => path.includes("node_modules/@clerk/shared/dist/runtime/react/index.mjs"))).toBe(true);
    expect(inputs.filter((path) => /node_modules\/swr\//.test(path))).toEqual([]);
  });

  it("shares @clerk/shared's ES modules with the app's clerk-js loader: no CommonJS copy of it in the browser", async () => {
    const inputs = await browserBundleInputs(
      'import { ClerkProvider } from "@clerk/clerk-react";' +
        'import { loadClerkJsScript } from "./app/lib/clerk/clerk-js-script.client";' +
        "console.log(ClerkProvider, loadClerkJsScript);",
    );
    const shared = inputs.filter((path) => path.includes("node_modules/@clerk/shared/"));
    expect(shared.some((path) => /\/loadClerkJsScript-[\w-]+\.mjs$/.test(path))).toBe(true);
    expect(shared.filter((path) => !path.endsWith(".mjs"))).toEqual([]);
  });
});

describe("Clerk's token check, patched (patches/@clerk+backend)", () => {
  it("imports Clerk's key once, checks a token's signature once, reads each token for itself, and refuses what it refused before", async () => {
    const { verifyToken } = await import("@clerk/backend");
    const { generateSigningKey, signJwt } = await import("clerk-emulator/testing");
    const key = generateSigningKey();
    const now = Math.floor(Date.now() / 1000);
    const claims = (sub: string) => ({ sub, sid: `sess_${sub}`, iat: now, nbf: now - 5, exp: now + 60 });
    // (It throws what it refuses.)
    const check = (token: string) => verifyToken(token, { jwtKey: key.publicKeyPem });
    const importKey = vi.spyOn(globalThis.crypto.subtle, "importKey");
    try {
      for (const sub of ["user_1", "user_2", "user_3", "user_4"])
        expect((await check(signJwt(key, claims(sub)))).sub).toBe(sub);
      expect(importKey).toHaveBeenCalledTimes(1);
      // Each token is read for itself: its decoding is kept for that token string only.
      const first = signJwt(key, claims("user_1"));
      for (const sub of ["user_2", "user_1", "user_3"])
        expect((await check(sub === "user_1" ? first : signJwt(key, claims(sub)))).sub).toBe(sub);
      // Another key's signature under Clerk's key id; a token that names another algorithm, signed with it.
      const forged = signJwt({ ...generateSigningKey(), kid: key.kid }, claims("user_1"));
      await expect(check(forged)).rejects.toMatchObject({ reason: "token-invalid-signature" });
      const [, payload] = signJwt(key, claims("user_1")).split(".");
      const header = Buffer.from(JSON.stringify({ alg: "RS384", kid: key.kid, typ: "JWT" })).toString("base64url");
      const rs384 = sign("RSA-SHA384", Buffer.from(`${header}.${payload}`), key.privateKey).toString("base64url");
      await expect(check(`${header}.${payload}.${rs384}`)).rejects.toMatchObject({
        reason: "token-verification-failed",
      });
      // The RS256 key kept for Clerk's tokens is still the one they verify with.
      expect((await check(signJwt(key, claims("user_5")))).sub).toBe("user_5");

      // A token's signature is checked once; the same claims under another signature are checked, and refused.
      const verify = vi.spyOn(globalThis.crypto.subtle, "verify");
      const kept = signJwt(key, claims("user_6"));
      for (let n = 0; n < 3; n++) expect((await check(kept)).sub).toBe("user_6");
      expect(verify).toHaveBeenCalledTimes(1);
      const [signedPart] = kept.split(/\.(?=[^.]*$)/);
      const otherSignature = sign("RSA-SHA256", Buffer.from(signedPart!), generateSigningKey().privateKey);
      await expect(check(`${signedPart}.${otherSignature.toString("base64url")}`)).rejects.toMatchObject({
        reason: "token-invalid-signature",
      });
      expect(verify).toHaveBeenCalledTimes(2);
    } finally {
      vi.restoreAllMocks();
    }
    // Three RSA keys made on a loaded machine take seconds.
  }, 30_000);
});

describe("Clerk's cookie suffix, patched (patches/@clerk+shared)", () => {
  it("is hashed once per publishable key, each key its own, as Clerk names the cookies", async () => {
    const { getCookieSuffix } = await import("@clerk/shared/keys");
    const expected = (key: string) =>
      createHash("sha1").update(key).digest("base64").replace(/\+/g, "-").replace(/\//g, "_").slice(0, 8);
    const keys = ["pk_live_Y2xlcmsuYS50ZXN0JA", "pk_live_Y2xlcmsuYi50ZXN0JA"];
    const digest = vi.spyOn(globalThis.crypto.subtle, "digest");
    try {
      for (let n = 0; n < 3; n++) for (const key of keys) expect(await getCookieSuffix(key)).toBe(expected(key));
      expect(digest).toHaveBeenCalledTimes(2);
      // A WebCrypto of the caller's own is asked every time.
      const subtle = {
        digest: vi.fn((_: string, data: BufferSource) => globalThis.crypto.subtle.digest("SHA-1", data)),
      };
      for (let n = 0; n < 2; n++)
        expect(await getCookieSuffix(keys[0]!, subtle as unknown as SubtleCrypto)).toBe(expected(keys[0]!));
      expect(subtle.digest).toHaveBeenCalledTimes(2);
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe("the auth object", () => {
  it("is built once per authentication, however many loaders ask for it", async () => {
    const { createClerkClient } = await import("@clerk/backend");
    const { authOf } = await import("../../app/lib/clerk/auth.server");
    const clerk = createClerkClient({
      secretKey: "sk_live_unit",
      publishableKey: `pk_live_${Buffer.from("clerk.unit.invalid$").toString("base64")}`,
    });
    // A request with no session: Clerk decides without any network.
    const state = await clerk.authenticateRequest(new Request("http://localhost/"));
    expect(state.status).toBe("signed-out");
    const toAuth = vi.spyOn(state, "toAuth");
    const first = authOf(state);
    expect(authOf(state)).toBe(first);
    expect(authOf(state)).toBe(first);
    expect(toAuth).toHaveBeenCalledTimes(1);
    expect(first.userId).toBeNull();
  });
});

describe("Remix's empty modules, patched (patches/@remix-run+dev)", () => {
  it("an import of a .server module that only the loader uses costs the browser no chunk", async () => {
    const { build } = await import("esbuild");
    const dir = join(ROOT, "tests/unit");
    const { emptyModulesPlugin } = await import("@remix-run/dev/dist/compiler/plugins/emptyModules.js");
    // The plugin reads one field of Remix's config.
    const ctx = { config: { appDirectory: dir } } as Parameters<typeof emptyModulesPlugin>[0];
    // A route module as Remix's browser build sees it: only its client exports are taken.
    const browserBundle = async (component: string) => {
      const route = ['import { secret } from "./data.server";', "export const loader = () => secret;", component];
      const result = await build({
        stdin: { contents: 'export { default } from "route";', resolveDir: dir, loader: "ts" },
        bundle: true,
        write: false,
        format: "esm",
        plugins: [
          {
            name: "route",
            setup(b) {
              b.onResolve({ filter: /^route$/ }, () => ({ path: "route", namespace: "route" }));
              b.onLoad({ filter: /.*/, namespace: "route" }, () => ({
                contents: route.join("\n"),
                loader: "ts",
                resolveDir: dir,
              }));
            },
          },
          emptyModulesPlugin(ctx, /\.server(\.[jt]sx?)?$/),
        ],
      });
      return result.outputFiles[0]!.text;
    };
    expect(await browserBundle("export default () => 1;")).not.toContain("exports = {}");
    // Used by the component, the empty module stays (undefined in the browser, as before).
    expect(await browserBundle("export default () => secret;")).toContain("exports = {}");
  });
});
