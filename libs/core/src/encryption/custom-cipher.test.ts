import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { describe, expect, it } from "vitest";
import { withEncryptionUser } from "./context.js";
import { customCipher, type CustomEncryptor, type EncryptionContext } from "./custom-cipher.js";
import { EncryptionKeyError, fieldCipher, NO_ENCRYPTION } from "./field-cipher.js";
import { aesKey } from "./keys.js";

/** A per-tenant encryptor of the kind the hook is for: each identity its own AES-256-GCM key. */
function tenantEncryptor(seen: EncryptionContext[]): CustomEncryptor {
  const keys = new Map([
    ["alice", randomBytes(32)],
    ["bob", randomBytes(32)],
  ]);
  const keyOf = (context: EncryptionContext) => {
    seen.push(context);
    const key = keys.get(context.user?.identity ?? "");
    if (!key) throw new Error(`no key for tenant ${context.user?.identity ?? "(none)"}`);
    return key;
  };
  return {
    encrypt(plaintext, context) {
      const iv = randomBytes(12);
      const c = createCipheriv("aes-256-gcm", keyOf(context), iv);
      return Buffer.concat([iv, c.update(plaintext), c.final(), c.getAuthTag()]);
    },
    decrypt(ciphertext, context) {
      const b = Buffer.from(ciphertext);
      const d = createDecipheriv("aes-256-gcm", keyOf(context), b.subarray(0, 12));
      d.setAuthTag(b.subarray(b.length - 16));
      return Buffer.concat([d.update(b.subarray(12, b.length - 16)), d.final()]);
    },
  };
}

describe("customCipher", () => {
  it("seals with the hook for the writing user, keeps the identity to open it for whoever reads, and says where a value lives", () => {
    const seen: EncryptionContext[] = [];
    const cipher = customCipher(tenantEncryptor(seen), NO_ENCRYPTION);
    const sealed = withEncryptionUser({ identity: "alice" }, () => cipher.sealJson({ text: "alice's secret" }, "threads.values"));
    expect(JSON.stringify(sealed)).not.toContain("alice's secret");
    expect(seen[0]).toEqual({ model: "threads", field: "values", user: { identity: "alice" } });
    // Read back in bob's request (or a background sweep): opened with alice's key.
    expect(withEncryptionUser({ identity: "bob" }, () => cipher.openJson(sealed, "threads.values"))).toEqual({ text: "alice's secret" });
    expect(cipher.openJson(sealed, "threads.values")).toEqual({ text: "alice's secret" });
    const blob = withEncryptionUser({ identity: "bob" }, () => cipher.sealBytes(Buffer.from("bob's bytes"), "checkpoints.checkpoint"));
    expect(Buffer.from(cipher.openBytes(blob, "checkpoints.checkpoint")).toString()).toBe("bob's bytes");
  });

  it("still opens what LANGGRAPH_AES_KEY sealed, and a hook that cannot open says which value and whose", () => {
    const aes = fieldCipher(aesKey("0123456789abcdef", "K"));
    const cipher = customCipher(tenantEncryptor([]), aes);
    expect(cipher.openJson(aes.sealJson({ old: true }, "store.value"), "store.value")).toEqual({ old: true });
    expect(Buffer.from(cipher.openBytes(aes.sealBytes(Buffer.from("old"), "b"), "b")).toString()).toBe("old");
    expect(cipher.openJson({ plain: 1 }, "store.value")).toEqual({ plain: 1 });
    expect(() => cipher.sealJson("x", "runs.kwargs")).toThrow(/no key for tenant \(none\)/);
    const sealed = withEncryptionUser({ identity: "alice" }, () => cipher.sealJson("x", "runs.kwargs"));
    const forged = {
      $enc: (sealed as { $enc: string }).$enc.replace(/^c1\.[^.]+/, `c1.${Buffer.from('{"identity":"bob"}').toString("base64url")}`),
    };
    expect(() => cipher.openJson(forged, "runs.kwargs")).toThrow(EncryptionKeyError);
    expect(() => cipher.openJson(forged, "runs.kwargs")).toThrow(/could not open runs.kwargs of bob/);
  });
});
