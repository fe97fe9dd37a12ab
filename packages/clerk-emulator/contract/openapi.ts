import { readFileSync } from "node:fs";
import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { Exchange } from "../src/http/recorder";
import { allowlist, type Excuse } from "./allowlist";
import { readClerkSpec } from "./clerk-specs";

/**
 * Clerk's contract: every answer the emulator gives, checked against Clerk's
 * own OpenAPI description of it (API version 2025-11-10, the one clerk-js 5.128
 * and @clerk/backend 2.33 speak). Where Clerk's spec is wrong about what Clerk
 * sends, `contract/allowlist.ts` corrects the spec, with the evidence.
 */

/** One answer as the emulator's recorder writes it. */
export type Answer = Exchange;
export type Api = Answer["api"];

const SPECS: Record<Api, string> = { fapi: "fapi-2025-11-10.yml", bapi: "bapi-2025-11-10.yml" };
const JSON_TYPE = "application/json";

type Json = Record<string, unknown>;
type Operation = { responses?: Record<string, Json> };
type Route = { template: string; pattern: RegExp; literals: number; operations: Record<string, Operation> };

/**
 * OpenAPI 3.0's dialect, said in the JSON Schema Ajv speaks: `nullable` as a
 * null alternative (the specs put it beside `$ref` and `allOf`, where Ajv's own
 * `nullable` needs a `type`), draft-4 boolean `exclusiveMinimum`, and without
 * the annotations Ajv does not know. Local `$ref`s point into the named spec.
 */
export function toJsonSchema(node: unknown, specId: string): unknown {
  if (Array.isArray(node)) return node.map((item) => toJsonSchema(item, specId));
  if (!node || typeof node !== "object") return node;
  const out: Json = {};
  for (const [key, value] of Object.entries(node as Json)) {
    if (key === "discriminator" || key === "example" || key === "examples" || key.startsWith("x-")) continue;
    if (key === "deprecated" || key === "nullable" || key === "exclusiveMinimum" || key === "exclusiveMaximum")
      continue;
    if (key === "$ref" && typeof value === "string" && value.startsWith("#")) out.$ref = `${specId}${value}`;
    // `properties` maps names to schemas: a property named like a keyword ("example") is still a property.
    else if (key === "properties" && value && typeof value === "object")
      out.properties = Object.fromEntries(
        Object.entries(value as Json).map(([name, schema]) => [name, toJsonSchema(schema, specId)]),
      );
    else out[key] = toJsonSchema(value, specId);
  }
  const source = node as Json;
  for (const [bound, limit] of [
    ["exclusiveMinimum", "minimum"],
    ["exclusiveMaximum", "maximum"],
  ] as const) {
    if (source[bound] === true && typeof source[limit] === "number") {
      out[bound] = source[limit];
      delete out[limit];
    } else if (typeof source[bound] === "number") out[bound] = source[bound];
  }
  return source.nullable === true ? { anyOf: [out, { type: "null" }] } : out;
}

function pointerGet(doc: unknown, pointer: string): unknown {
  return pointer
    .replace(/^#?\//, "")
    .split("/")
    .map((part) => part.replace(/~1/g, "/").replace(/~0/g, "~"))
    .reduce<unknown>((node, part) => (node && typeof node === "object" ? (node as Json)[part] : undefined), doc);
}

/** Applies the allowlist's corrections to a spec, failing loudly on one that no longer points at anything. */
function applyExcuses(api: Api, doc: Json, excuses: Excuse[]) {
  for (const excuse of excuses.filter((e) => e.api === api)) {
    const schema = pointerGet(doc, excuse.schema) as Json | undefined;
    if (!schema || typeof schema !== "object")
      throw new Error(`allowlist: ${api} ${excuse.schema} is not in Clerk's spec`);
    excuse.correct(schema);
  }
}

function routesOf(doc: Json): Route[] {
  const routes = Object.entries((doc.paths ?? {}) as Record<string, Record<string, Operation>>).map(
    ([template, operations]) => {
      const source = template
        .split("/")
        .map((segment) => (/^\{[^}]+\}$/.test(segment) ? "[^/]+" : segment.replace(/[.*+?^$()|[\]\\]/g, "\\$&")))
        .join("/");
      return {
        template,
        pattern: new RegExp(`^${source}/?$`),
        literals: template.split("/").filter((s) => s && !s.startsWith("{")).length,
        operations,
      };
    },
  );
  // A literal path wins over a template that also matches it (/me/sessions/active over /me/sessions/{id}).
  return routes.sort((a, b) => b.literals - a.literals);
}

export type Mismatch = { answer: Answer; operation: string; problem: string };

export type Contract = {
  /** Null when the answer keeps the contract, else what is wrong. */
  check(answer: Answer): Mismatch | null;
};

let loaded: Contract | undefined;

/** Both specs, read once per process. */
export function loadContract(): Contract {
  if (loaded) return loaded;
  const ajv = new Ajv({ strict: false, allErrors: true, validateSchema: false, validateFormats: false });
  const routes = {} as Record<Api, Route[]>;
  const docs = {} as Record<Api, Json>;
  for (const api of ["fapi", "bapi"] as const) {
    const doc = readClerkSpec(SPECS[api]);
    applyExcuses(api, doc, allowlist);
    docs[api] = doc;
    routes[api] = routesOf(doc);
    ajv.addSchema({ components: toJsonSchema(doc.components, api) }, api);
  }
  const compiled = new Map<string, ValidateFunction>();
  const validatorFor = (api: Api, pointer: string, schema: unknown) => {
    const key = `${api}${pointer}`;
    let validate = compiled.get(key);
    if (!validate) {
      validate = ajv.compile(toJsonSchema(schema, api) as Json);
      compiled.set(key, validate);
    }
    return validate;
  };

  /** The answer's response object in the spec, following a `$ref` into components.responses. */
  const responseFor = (api: Api, responses: Record<string, Json>, status: number): [string, Json] | undefined => {
    const key = [String(status), `${String(status)[0]}XX`, "default"].find((k) => k in responses);
    if (!key) return undefined;
    let response = responses[key]!;
    let pointer = key;
    if (typeof response.$ref === "string") {
      pointer = response.$ref;
      response = pointerGet(docs[api], response.$ref) as Json;
    }
    return [pointer, response];
  };

  const errorSchema = (api: Api) => pointerGet(docs[api], "#/components/schemas/ClerkErrors");

  loaded = {
    check(answer) {
      // The Backend API's spec paths are relative to its `/v1` server URL.
      const path = answer.api === "bapi" ? answer.path.replace(/^\/v1(?=\/)/, "") : answer.path;
      const route = routes[answer.api].find((r) => r.pattern.test(path));
      const verb = answer.method.toLowerCase();
      const operation = route?.operations[verb];
      const name = `${answer.api} ${answer.method} ${route?.template ?? answer.path}`;
      const fail = (problem: string): Mismatch => ({ answer, operation: name, problem });
      const validate = (pointer: string, schema: unknown) => {
        const v = validatorFor(answer.api, pointer, schema);
        return v(answer.body) ? null : fail(describe(v.errors ?? []));
      };
      const json = answer.contentType?.startsWith(JSON_TYPE) ?? false;

      if (!operation) {
        // What Clerk does not have, Clerk answers with its error envelope: so must the emulator.
        if (answer.status < 400) return fail(`Clerk's API has no ${answer.method} ${answer.path}`);
        return json ? validate("#/components/schemas/ClerkErrors", errorSchema(answer.api)) : fail("error not JSON");
      }
      const found = responseFor(answer.api, operation.responses ?? {}, answer.status);
      if (!found) {
        if (answer.status >= 400 && json) return validate("#/components/schemas/ClerkErrors", errorSchema(answer.api));
        return fail(`status ${answer.status} is not one Clerk's spec gives`);
      }
      const [pointer, response] = found;
      const content = response.content as Record<string, { schema?: unknown }> | undefined;
      const schema = content?.[JSON_TYPE]?.schema;
      if (!schema) return null; // The spec describes no JSON body (a redirect, an empty answer).
      if (!json) return fail(`expected ${JSON_TYPE}, got ${answer.contentType ?? "no body"}`);
      return validate(`${route!.template} ${verb} ${pointer}`, schema);
    },
  };
  return loaded;
}

/** Ajv's errors as one readable line each, the noise of anyOf branches folded. */
function describe(errors: ErrorObject[]): string {
  const lines = errors
    .filter(
      (e) => e.keyword !== "anyOf" && e.keyword !== "oneOf" && !(e.keyword === "type" && e.params.type === "null"),
    )
    .map((e) => {
      const at = e.instancePath || "(root)";
      if (e.keyword === "additionalProperties") return `${at} has ${String(e.params.additionalProperty)}, not in spec`;
      if (e.keyword === "required") return `${at} lacks ${String(e.params.missingProperty)}`;
      return `${at} ${e.message ?? e.keyword}`;
    });
  return [...new Set(lines)].slice(0, 12).join("; ");
}

/** How far a recorder file's complete lines go (a line being written is not yet one). */
export const completeLength = (file: string) => readFileSync(file).lastIndexOf(0x0a) + 1;

/** What is wrong with `answers`, a line each; Clerk's spec is read only when there is something to check. */
export function contractBreaches(answers: Answer[]): string[] {
  if (answers.length === 0) return [];
  const contract = loadContract();
  return answers.flatMap((answer) => {
    const mismatch = contract.check(answer);
    return mismatch ? [formatMismatch(mismatch)] : [];
  });
}

/** Reads the complete lines of a recorder file from `offset`; returns them and the offset after them. */
export function readAnswers(file: string, offset = 0): { answers: Answer[]; next: number } {
  const buffer = readFileSync(file);
  const end = buffer.lastIndexOf(0x0a) + 1;
  if (end <= offset) return { answers: [], next: offset };
  const text = buffer.subarray(offset, end).toString("utf8");
  const answers = text
    .split("\n")
    .filter(Boolean)
    .map((line) => JSON.parse(line) as Answer);
  return { answers, next: end };
}

/** A mismatch as a test failure shows it. */
export const formatMismatch = (m: Mismatch) =>
  `${m.operation} → ${m.answer.status}: ${m.problem}${m.answer.test ? ` (test ${m.answer.test})` : ""}`;
