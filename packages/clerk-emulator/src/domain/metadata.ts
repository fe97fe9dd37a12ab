import { ApiError } from "./errors";
import type { Metadata } from "../state/store";

/** Metadata as Clerk takes it: a JSON object, sent as a string by clerk-js's forms or as an object in JSON bodies. */
export function parseMetadata(value: unknown, param: string): Metadata {
  let parsed: unknown = value;
  if (typeof value === "string") {
    try {
      parsed = JSON.parse(value || "{}");
    } catch {
      throw new ApiError(422, "form_param_format_invalid", `${param} must be a JSON object.`, param);
    }
  }
  if (parsed === null) return {};
  if (typeof parsed !== "object" || Array.isArray(parsed)) {
    throw new ApiError(422, "form_param_format_invalid", `${param} must be a JSON object.`, param);
  }
  if (JSON.stringify(parsed).length > 8 * 1024) {
    throw new ApiError(422, "form_param_exceeds_allowed_size", `${param} must be 8 KB or smaller.`, param);
  }
  return parsed as Metadata;
}

const isObject = (v: unknown): v is Metadata => typeof v === "object" && v !== null && !Array.isArray(v);

/** Clerk's metadata merge: nested objects merge key by key, and a key set to null is removed. */
export function mergeMetadata(current: Metadata, patch: Metadata): Metadata {
  const out: Metadata = { ...current };
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete out[key];
    else if (isObject(value) && isObject(out[key])) out[key] = mergeMetadata(out[key], value);
    else out[key] = value;
  }
  return out;
}
