import { createHmac } from "node:crypto";
import { InvalidInputError } from "@agent-server/core";

/** The environment variable that holds the signing secret; it wins over langgraph.json `webhooks.signing_secret`. */
export const WEBHOOK_SECRET_ENV = "AGENT_SERVER_WEBHOOK_SECRET";

const WHSEC_PREFIX = "whsec_";
/** Standard Webhooks asks for keys of 24 to 64 bytes; a shorter `whsec_` key is a mistake worth stopping for. */
const MIN_KEY_BYTES = 24;
const BASE64_DIGITS = /^[A-Za-z0-9+/]+$/;

/**
 * The HMAC key of a signing secret, in the Standard Webhooks format: `whsec_` and the base64 of the key
 * bytes (what Svix and other senders hand out, so a receiver's library reads the same string), or any
 * other string, whose UTF-8 bytes are the key. A `whsec_` secret that is not canonical base64 (padding
 * optional) or decodes to fewer than 24 bytes is refused, naming `setting` and never echoing the secret:
 * Node's base64 decoder skips bad characters silently, which would sign with a key the receiver lacks.
 */
export function parseSigningSecret(secret: string, setting: string): Buffer {
  if (!secret.startsWith(WHSEC_PREFIX)) {
    if (secret.length === 0) throw new InvalidInputError(`${setting}: the webhook signing secret is empty`);
    return Buffer.from(secret, "utf8");
  }
  const digits = secret.slice(WHSEC_PREFIX.length).replace(/={1,2}$/, "");
  const key = Buffer.from(digits, "base64");
  if (!BASE64_DIGITS.test(digits) || digits.length % 4 === 1 || key.toString("base64").replace(/=+$/, "") !== digits) {
    throw new InvalidInputError(`${setting}: a "whsec_" webhook signing secret must be followed by base64 (it does not decode)`);
  }
  if (key.length < MIN_KEY_BYTES) {
    throw new InvalidInputError(
      `${setting}: a "whsec_" webhook signing secret must hold at least ${MIN_KEY_BYTES} bytes of key (it holds ${key.length})`,
    );
  }
  return key;
}

/**
 * The Standard Webhooks headers of one attempt. `id` stays the same across retries so a receiver can
 * drop a repeat; the timestamp is the attempt's own (receivers refuse old ones to stop replays), so the
 * signature is made again for each attempt over exactly the bytes sent.
 */
export function signatureHeaders(key: Uint8Array, id: string, body: string, nowMs = Date.now()): Record<string, string> {
  const timestamp = String(Math.floor(nowMs / 1000));
  const signature = createHmac("sha256", key).update(`${id}.${timestamp}.${body}`, "utf8").digest("base64");
  return { "webhook-id": id, "webhook-timestamp": timestamp, "webhook-signature": `v1,${signature}` };
}
