import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { InvalidInputError } from "../errors.js";
import { EncryptionKeyError, fieldCipher, isSealedBytes, isSealedJson, NO_ENCRYPTION } from "./field-cipher.js";
import { aesKey, jsonKeysFromEnvironment, keysFromEnvironment } from "./keys.js";

const k16 = aesKey("0123456789abcdef", "K");
const k32 = aesKey("0123456789abcdef0123456789abcdef", "K");
const other = aesKey("fedcba9876543210", "K");

describe("fieldCipher", () => {
  it("opens what it sealed, for any JSON value and either key size, and the sealed form holds none of the plaintext", () => {
    for (const key of [k16, k32]) {
      const cipher = fieldCipher(key);
      fc.assert(
        fc.property(fc.jsonValue(), (value) => {
          const sealed = cipher.sealJson(value, "threads.values");
          expect(isSealedJson(sealed)).toBe(true);
          expect(cipher.openJson(JSON.parse(JSON.stringify(sealed)), "threads.values")).toEqual(JSON.parse(JSON.stringify(value)));
        }),
      );
      fc.assert(
        fc.property(fc.uint8Array({ minLength: 0, maxLength: 300 }), (bytes) => {
          const sealed = cipher.sealBytes(bytes, "checkpoints.checkpoint");
          expect(isSealedBytes(sealed)).toBe(true);
          expect(Buffer.from(cipher.openBytes(sealed, "checkpoints.checkpoint")).equals(Buffer.from(bytes))).toBe(true);
        }),
      );
    }
    const marker = "MARKER-7d1c0e";
    const sealed = JSON.stringify(fieldCipher(k32).sealJson({ messages: [{ content: marker }] }, "runs.kwargs"));
    expect(sealed).not.toContain(marker);
    expect(Buffer.from(fieldCipher(k32).sealBytes(Buffer.from(marker), "b")).includes(marker)).toBe(false);
  });

  it("reads plaintext written before a key was set, and without a key leaves values as they are", () => {
    expect(fieldCipher(k16).openJson({ messages: [] }, "threads.values")).toEqual({ messages: [] });
    expect(fieldCipher(k16).openBytes(Buffer.from("plain"), "b")).toEqual(Buffer.from("plain"));
    expect(NO_ENCRYPTION.sealJson({ a: 1 }, "x")).toEqual({ a: 1 });
    expect(NO_ENCRYPTION.sealing).toBe(false);
  });

  it("refuses a value sealed with a key it was not given, altered, or moved to another column, naming the key", () => {
    const sealed = fieldCipher(other).sealJson("secret", "store.value");
    expect(() => fieldCipher(k16).openJson(sealed, "store.value")).toThrow(EncryptionKeyError);
    expect(() => NO_ENCRYPTION.openJson(sealed, "store.value")).toThrow(new RegExp(`key ${other.id}.*LANGGRAPH_AES_KEY`));
    // A fallback key opens it; new values are sealed with the primary one.
    const rotating = fieldCipher(k16, [other]);
    expect(rotating.openJson(sealed, "store.value")).toBe("secret");
    expect((rotating.sealJson("x", "store.value") as { $enc: string }).$enc).toContain(`.${k16.id}.`);
    expect(() => rotating.openJson(sealed, "threads.values")).toThrow(/altered, or sealed for another place/);
    const body = (sealed as { $enc: string }).$enc;
    // The second-last character always changes (the last may carry only base64 padding bits).
    const altered = { $enc: `${body.slice(0, -2)}${body.at(-2) === "A" ? "B" : "A"}${body.slice(-1)}` };
    expect(() => rotating.openJson(altered, "store.value")).toThrow(EncryptionKeyError);
  });

  it("seals the metadata keys it was told to, at any depth, and opens every sealed value it meets", () => {
    const cipher = fieldCipher(k16, [], ["api_key"]);
    const metadata = { owner: "alice", api_key: "sk-123", nested: [{ api_key: { deep: true }, keep: 1 }], none: null };
    const sealed = cipher.sealKeys(metadata, "threads.metadata") as Record<string, unknown>;
    expect(sealed.owner).toBe("alice");
    expect(isSealedJson(sealed.api_key)).toBe(true);
    expect(JSON.stringify(sealed)).not.toContain("sk-123");
    expect(cipher.openKeys(JSON.parse(JSON.stringify(sealed)), "threads.metadata")).toEqual(metadata);
    expect(fieldCipher(k16).sealKeys(metadata, "threads.metadata")).toEqual(metadata);
    expect(() => jsonKeysFromEnvironment({ LANGGRAPH_AES_KEY: "0123456789abcdef", LANGGRAPH_AES_JSON_KEYS: "api_key, thread_id" })).toThrow(
      /names thread_id: system fields stay plaintext/,
    );
  });

  it("takes keys as the Python server does: 16, 24 or 32 bytes of text, fallbacks only beside a primary key", () => {
    expect(() => aesKey("short", "LANGGRAPH_AES_KEY")).toThrow(/LANGGRAPH_AES_KEY must be 16, 24 or 32 bytes.*it is 5 bytes/);
    expect(aesKey("0123456789abcdef01234567", "K").bytes).toHaveLength(24);
    expect(k16.id).toMatch(/^[0-9a-f]{16}$/);
    expect(k16.id).not.toBe(other.id);
    const keys = keysFromEnvironment({ LANGGRAPH_AES_KEY: "0123456789abcdef", LANGGRAPH_AES_FALLBACK_KEYS: " fedcba9876543210 ," });
    expect(keys.primary?.id).toBe(k16.id);
    expect(keys.fallbacks.map((k) => k.id)).toEqual([other.id]);
    expect(keysFromEnvironment({})).toEqual({ primary: undefined, fallbacks: [] });
    expect(() => keysFromEnvironment({ LANGGRAPH_AES_FALLBACK_KEYS: "fedcba9876543210" })).toThrow(InvalidInputError);
  });
});
