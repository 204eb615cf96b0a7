import { createHmac } from "node:crypto";
import { InvalidInputError } from "../errors.js";

/** One AES key and the id stored with everything it seals. */
export interface AesKey {
  /** 16 hex digits of an HMAC of the key: names the key in ciphertext and logs without revealing it. */
  id: string;
  bytes: Buffer;
}

/**
 * What the environment says about keys, in the Python Agent Server's variables (an operator's runbook
 * carries over): `LANGGRAPH_AES_KEY` seals everything written; `LANGGRAPH_AES_FALLBACK_KEYS`
 * (comma-separated) only open what older (or future) keys sealed, during a rotation.
 */
export interface KeyEnvironment {
  LANGGRAPH_AES_KEY?: string | undefined;
  LANGGRAPH_AES_FALLBACK_KEYS?: string | undefined;
}

/**
 * A key as the Python server takes it: the variable's text, 16, 24 or 32 bytes of UTF-8 (AES-128, -192,
 * -256). Anything else is refused with the variable named, never padded or hashed into shape.
 */
export function aesKey(text: string, variable: string): AesKey {
  const bytes = Buffer.from(text, "utf8");
  if (![16, 24, 32].includes(bytes.length)) {
    throw new InvalidInputError(`${variable} must be 16, 24 or 32 bytes (AES-128, -192 or -256); it is ${bytes.length} bytes`);
  }
  return { id: keyId(bytes), bytes };
}

export function keyId(bytes: Uint8Array): string {
  return createHmac("sha256", bytes).update("agent-server key id").digest("hex").slice(0, 16);
}

/** The keys of `env`: the primary one (if any) first, then the fallbacks; empty when no key is set. */
export function keysFromEnvironment(env: KeyEnvironment): { primary: AesKey | undefined; fallbacks: AesKey[] } {
  const primary = env.LANGGRAPH_AES_KEY ? aesKey(env.LANGGRAPH_AES_KEY, "LANGGRAPH_AES_KEY") : undefined;
  const fallbacks = (env.LANGGRAPH_AES_FALLBACK_KEYS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "")
    .map((k, i) => aesKey(k, `LANGGRAPH_AES_FALLBACK_KEYS (key ${i + 1})`));
  if (!primary && fallbacks.length > 0) {
    throw new InvalidInputError("LANGGRAPH_AES_FALLBACK_KEYS is set without LANGGRAPH_AES_KEY: set the key new data is sealed with");
  }
  return { primary, fallbacks };
}

/**
 * Fields that stay plaintext whatever LANGGRAPH_AES_JSON_KEYS says, as on the Python server: ids the
 * server looks rows up by, and the system fields it reads.
 */
const SYSTEM_FIELDS = new Set([
  "thread_id",
  "run_id",
  "assistant_id",
  "graph_id",
  "checkpoint_id",
  "task_id",
  "owner",
  "source",
  "step",
  "parents",
  "run_attempt",
  "langgraph_version",
  "langgraph_api_version",
  "langgraph_plan",
  "langgraph_host",
  "langgraph_api_url",
  "langgraph_request_id",
  "langgraph_auth_user",
  "langgraph_auth_user_id",
  "langgraph_auth_permissions",
]);

/** LANGGRAPH_AES_JSON_KEYS: comma-separated metadata keys to seal; a system field is refused by name. */
export function jsonKeysFromEnvironment(env: {
  LANGGRAPH_AES_JSON_KEYS?: string | undefined;
  LANGGRAPH_AES_KEY?: string | undefined;
}): string[] {
  const keys = (env.LANGGRAPH_AES_JSON_KEYS ?? "")
    .split(",")
    .map((k) => k.trim())
    .filter((k) => k !== "");
  if (keys.length > 0 && !env.LANGGRAPH_AES_KEY) throw new InvalidInputError("LANGGRAPH_AES_JSON_KEYS is set without LANGGRAPH_AES_KEY");
  const system = keys.filter((k) => SYSTEM_FIELDS.has(k));
  if (system.length > 0) {
    throw new InvalidInputError(
      `LANGGRAPH_AES_JSON_KEYS names ${system.join(", ")}: system fields stay plaintext (the server looks rows up by them)`,
    );
  }
  return keys;
}
