import { encryptionUser, type EncryptionUser } from "./context.js";
import { EncryptionKeyError, isSealedBytes, isSealedJson, type FieldCipher } from "./field-cipher.js";

/** What a custom encryptor is told about a value: where it lives and whose it is. */
export interface EncryptionContext {
  /** The table, e.g. `threads`, `runs`, `store`, `checkpoints`. */
  model: string;
  /** The column, e.g. `values`, `kwargs`, `value`, `checkpoint`. */
  field: string;
  /** Who the value was written for (its identity is kept beside the ciphertext, in plaintext). */
  user?: Pick<EncryptionUser, "identity">;
}

/**
 * langgraph.json `"encryption": { "path": "./enc.ts:encryptor" }`: seals with keys of your own (per
 * tenant, from a KMS). Synchronous: it runs where storage drivers turn rows into objects. A KMS is used
 * through data keys unwrapped once (at module load, with top-level await, or on first use) and cached.
 */
export interface CustomEncryptor {
  encrypt(plaintext: Uint8Array, context: EncryptionContext): Uint8Array;
  decrypt(ciphertext: Uint8Array, context: EncryptionContext): Uint8Array;
}

const JSON_VERSION = "c1";
const BYTES_MAGIC = Buffer.from("AGC1", "latin1");

/**
 * A FieldCipher over a custom encryptor: new values are sealed by it, with the writing user's identity
 * kept beside the ciphertext so it is decrypted for the same user whoever reads it; values sealed with
 * LANGGRAPH_AES_KEY before (`aes`) still open, so a move from the built-in key to a hook loses nothing.
 */
export function customCipher(encryptor: CustomEncryptor, aes: FieldCipher): FieldCipher {
  const contextOf = (aad: string, user: EncryptionUser | Pick<EncryptionUser, "identity"> | undefined): EncryptionContext => {
    const dot = aad.indexOf(".");
    return {
      model: dot < 0 ? aad : aad.slice(0, dot),
      field: dot < 0 ? "" : aad.slice(dot + 1),
      ...(user ? { user: { identity: user.identity } } : {}),
    };
  };
  const owner = () => {
    const user = encryptionUser();
    return user ? { identity: user.identity } : {};
  };
  const cipher: FieldCipher = {
    sealing: true,
    keyId: undefined,
    jsonKeys: aes.jsonKeys,
    sealJson(value, aad) {
      if (value === undefined) return value;
      const who = owner();
      const sealed = encryptor.encrypt(Buffer.from(JSON.stringify(value), "utf8"), contextOf(aad, who.identity ? who : undefined));
      const header = Buffer.from(JSON.stringify(who), "utf8").toString("base64url");
      return { $enc: `${JSON_VERSION}.${header}.${Buffer.from(sealed).toString("base64url")}` };
    },
    openJson(stored, aad) {
      if (!isSealedJson(stored) || !stored.$enc.startsWith(`${JSON_VERSION}.`)) return aes.openJson(stored, aad);
      const [, header, body] = stored.$enc.split(".");
      const who = JSON.parse(Buffer.from(header ?? "", "base64url").toString("utf8")) as { identity?: string };
      const plain = decrypt(Buffer.from(body ?? "", "base64url"), contextOf(aad, who.identity ? { identity: who.identity } : undefined));
      return JSON.parse(Buffer.from(plain).toString("utf8"));
    },
    sealBytes(bytes, aad) {
      const who = owner();
      const header = Buffer.from(JSON.stringify(who), "utf8");
      const sealed = encryptor.encrypt(bytes, contextOf(aad, who.identity ? who : undefined));
      const length = Buffer.alloc(2);
      length.writeUInt16BE(header.length);
      return Buffer.concat([BYTES_MAGIC, length, header, sealed]);
    },
    openBytes(stored, aad) {
      const buffer = Buffer.from(stored.buffer, stored.byteOffset, stored.byteLength);
      if (!buffer.subarray(0, BYTES_MAGIC.length).equals(BYTES_MAGIC)) return isSealedBytes(stored) ? aes.openBytes(stored, aad) : stored;
      const length = buffer.readUInt16BE(BYTES_MAGIC.length);
      const start = BYTES_MAGIC.length + 2;
      const who = JSON.parse(buffer.subarray(start, start + length).toString("utf8")) as { identity?: string };
      return decrypt(buffer.subarray(start + length), contextOf(aad, who.identity ? { identity: who.identity } : undefined));
    },
    sealKeys(value, aad) {
      return aes.jsonKeys.size === 0 ? value : mapSealed(value, aes.jsonKeys, (v) => cipher.sealJson(v, aad));
    },
    openKeys(value, aad) {
      return mapOpened(value, (v) => cipher.openJson(v, aad));
    },
  };
  const decrypt = (ciphertext: Uint8Array, context: EncryptionContext): Uint8Array => {
    try {
      return encryptor.decrypt(ciphertext, context);
    } catch (error) {
      throw new EncryptionKeyError(
        `the encryption hook could not open ${context.model}.${context.field}${context.user ? ` of ${context.user.identity}` : ""}: ${(error as Error).message}`,
      );
    }
  };
  return cipher;
}

function mapSealed(value: unknown, keys: ReadonlySet<string>, seal: (v: unknown) => unknown): unknown {
  if (Array.isArray(value)) return value.map((v) => mapSealed(v, keys, seal));
  if (value === null || typeof value !== "object" || isSealedJson(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, keys.has(k) && v !== null && v !== undefined ? seal(v) : mapSealed(v, keys, seal)]),
  );
}

function mapOpened(value: unknown, open: (v: unknown) => unknown): unknown {
  if (isSealedJson(value)) return open(value);
  if (Array.isArray(value)) return value.map((v) => mapOpened(v, open));
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, mapOpened(v, open)]));
}
