import { createCipheriv, createDecipheriv, createSecretKey, randomBytes, type KeyObject } from "node:crypto";
import { AgentServerError } from "../errors.js";
import type { AesKey } from "./keys.js";

/**
 * A stored value was sealed with a key this server does not have (or was altered): reading it answers
 * this, naming the key, instead of returning what decryption would make of it.
 */
export class EncryptionKeyError extends AgentServerError {
  constructor(
    message: string,
    readonly keyId?: string,
  ) {
    super(message);
  }
}

/** What a sealed JSON value is stored as: one object with one key, in any JSON column. */
export interface SealedJson {
  $enc: string;
}

/**
 * Seals what users send before a storage driver writes it, and opens it when read. `aad` names where
 * the value lives (`threads.values`, `store.value`): a ciphertext moved to another column does not open.
 *
 * - JSON values are sealed into `{"$enc": "v1.<key id>.<base64url(iv | ciphertext | tag)>"}` (AES-GCM,
 *   a random 96-bit IV per value), so a JSON or jsonb column stays valid JSON and a row written before
 *   encryption was turned on (plain JSON) still reads.
 * - Bytes (checkpoint blobs) are sealed into `AGS1 | key id length | key id | iv | ciphertext | tag`.
 */
export interface FieldCipher {
  /** Whether this cipher seals (a key is set); without one, `seal*` return their input. */
  readonly sealing: boolean;
  /** The key new values are sealed with. */
  readonly keyId: string | undefined;
  sealJson(value: unknown, aad: string): unknown;
  openJson(stored: unknown, aad: string): unknown;
  sealBytes(bytes: Uint8Array, aad: string): Uint8Array;
  openBytes(stored: Uint8Array, aad: string): Uint8Array;
  /** The metadata keys sealed wherever they appear (LANGGRAPH_AES_JSON_KEYS). */
  readonly jsonKeys: ReadonlySet<string>;
  /** A metadata object with the values of `jsonKeys`, at any depth, sealed in place; every other key as it is. */
  sealKeys(value: unknown, aad: string): unknown;
  /** A metadata object with every sealed value in it opened. */
  openKeys(value: unknown, aad: string): unknown;
}

const JSON_VERSION = "v1";
const BYTES_MAGIC = Buffer.from("AGS1", "latin1");
const IV_BYTES = 12;
const TAG_BYTES = 16;

export function isSealedJson(value: unknown): value is SealedJson {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === "$enc" && typeof (value as SealedJson).$enc === "string";
}

export function isSealedBytes(bytes: Uint8Array): boolean {
  return bytes.length > BYTES_MAGIC.length && Buffer.from(bytes.buffer, bytes.byteOffset, BYTES_MAGIC.length).equals(BYTES_MAGIC);
}

/**
 * The cipher of `primary` (seals and opens) and `fallbacks` (open only); no key: nothing is sealed.
 * `jsonKeys`: metadata keys whose values are sealed too (`sealKeys`).
 */
export function fieldCipher(primary: AesKey | undefined, fallbacks: AesKey[] = [], jsonKeys: Iterable<string> = []): FieldCipher {
  const sealedKeys = new Set(primary ? jsonKeys : []);
  // Key objects made once: a cipher per value then imports no key bytes.
  const byId = new Map([...(primary ? [primary] : []), ...fallbacks].map((k) => [k.id, createSecretKey(k.bytes)]));
  const primaryKey = primary ? byId.get(primary.id)! : undefined;
  const keyFor = (id: string): KeyObject => {
    const key = byId.get(id);
    if (key) return key;
    throw new EncryptionKeyError(
      `stored data is sealed with key ${id}, which this server was not given (set it as LANGGRAPH_AES_KEY or in LANGGRAPH_AES_FALLBACK_KEYS)`,
      id,
    );
  };
  const walk = (value: unknown, aad: string, leaf: (key: string, inner: unknown) => unknown): unknown => {
    if (Array.isArray(value)) return value.map((v) => walk(v, aad, leaf));
    if (value === null || typeof value !== "object" || isSealedJson(value)) return value;
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, leaf(k, v)]));
  };
  const cipher: FieldCipher = {
    sealing: primary !== undefined,
    keyId: primary?.id,
    jsonKeys: sealedKeys,
    sealKeys(value, aad) {
      if (sealedKeys.size === 0) return value;
      const seal = (key: string, inner: unknown): unknown =>
        sealedKeys.has(key) && inner !== undefined && inner !== null ? cipher.sealJson(inner, aad) : walk(inner, aad, seal);
      return walk(value, aad, seal);
    },
    openKeys(value, aad) {
      if (byId.size === 0) return value;
      const open = (_key: string, inner: unknown): unknown => (isSealedJson(inner) ? cipher.openJson(inner, aad) : walk(inner, aad, open));
      return walk(value, aad, open);
    },
    sealJson(value, aad) {
      if (!primary || value === undefined) return value;
      const sealed = seal(primaryKey!, Buffer.from(JSON.stringify(value), "utf8"), aad);
      return { $enc: `${JSON_VERSION}.${primary.id}.${sealed.toString("base64url")}` };
    },
    openJson(stored, aad) {
      if (!isSealedJson(stored)) return stored;
      const [version, id, body] = stored.$enc.split(".");
      if (version !== JSON_VERSION || !id || body === undefined)
        throw new EncryptionKeyError(`stored ${aad} is not a value this server sealed`);
      return JSON.parse(open(keyFor(id), Buffer.from(body, "base64url"), aad, id).toString("utf8"));
    },
    sealBytes(bytes, aad) {
      if (!primary) return bytes;
      const id = Buffer.from(primary.id, "latin1");
      return Buffer.concat([BYTES_MAGIC, Buffer.from([id.length]), id, seal(primaryKey!, bytes, aad)]);
    },
    openBytes(stored, aad) {
      if (!isSealedBytes(stored)) return stored;
      const buffer = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      const idLength = buffer[BYTES_MAGIC.length]!;
      const idStart = BYTES_MAGIC.length + 1;
      const id = buffer.subarray(idStart, idStart + idLength).toString("latin1");
      return open(keyFor(id), buffer.subarray(idStart + idLength), aad, id);
    },
  };
  return cipher;
}

/** What a recorded key's check value seals (`RecordedKey.check`), and where. */
export const KEY_CHECK_VALUE = "agent-server key check";
export const KEY_CHECK_AAD = "encryption_keys.check";

/** No key: values are written as they are, and a sealed one read back says a key is needed. */
export const NO_ENCRYPTION: FieldCipher = fieldCipher(undefined);

function algorithm(key: KeyObject): "aes-128-gcm" | "aes-192-gcm" | "aes-256-gcm" {
  const length = key.symmetricKeySize;
  return length === 16 ? "aes-128-gcm" : length === 24 ? "aes-192-gcm" : "aes-256-gcm";
}

function seal(key: KeyObject, plaintext: Uint8Array, aad: string): Buffer {
  const iv = randomBytes(IV_BYTES);
  const cipher = createCipheriv(algorithm(key), key, iv);
  cipher.setAAD(Buffer.from(aad, "utf8"));
  const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]);
}

function open(key: KeyObject, sealed: Buffer, aad: string, id: string): Buffer {
  if (sealed.length < IV_BYTES + TAG_BYTES) throw new EncryptionKeyError(`stored ${aad} (key ${id}) is truncated`, id);
  const decipher = createDecipheriv(algorithm(key), key, sealed.subarray(0, IV_BYTES));
  decipher.setAAD(Buffer.from(aad, "utf8"));
  decipher.setAuthTag(sealed.subarray(sealed.length - TAG_BYTES));
  try {
    return Buffer.concat([decipher.update(sealed.subarray(IV_BYTES, sealed.length - TAG_BYTES)), decipher.final()]);
  } catch {
    throw new EncryptionKeyError(`stored ${aad} does not open with key ${id}: it was altered, or sealed for another place`, id);
  }
}
