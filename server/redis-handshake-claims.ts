import type { HandshakeClaims } from "../app/lib/clerk/handshake-binding.server";
import type { SharedRedis } from "./redis";
import { redisKey } from "./redis-keys";

/** Handshake returns honoured once across the fleet: one SET NX per return, on one key (a Redis Cluster serves it as one Redis). */
export function redisHandshakeClaims(redis: SharedRedis): HandshakeClaims {
  return {
    async claim(state, ttlMs) {
      const set = await redis.set(redisKey(`handshake:${state}`), "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
      return set === "OK";
    },
  };
}
