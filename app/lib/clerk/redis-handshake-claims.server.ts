import type { HandshakeClaims } from "./handshake-binding.server";
import type { KeyFormat, SharedRedis } from "../redis-commands.server";

/** Handshake returns honoured once across the fleet: one SET NX per return, on one key (a Redis Cluster serves it as one Redis). */
export function redisHandshakeClaims(redis: SharedRedis, redisKey: KeyFormat): HandshakeClaims {
  return {
    async claim(state, ttlMs) {
      const set = await redis.set(redisKey(`handshake:${state}`), "1", "PX", Math.max(1, Math.ceil(ttlMs)), "NX");
      return set === "OK";
    },
  };
}
