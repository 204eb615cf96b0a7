import { createCipheriv, createDecipheriv, createHash, randomBytes } from "node:crypto";
import { appendFileSync } from "node:fs";

interface Context {
  model: string;
  field: string;
  user?: { identity: string };
}

/**
 * A custom encryptor (langgraph.json `encryption.path`) with a key per tenant: each user's AES-256-GCM
 * key derived from a master secret, as a KMS would hand out data keys. It writes what it is told about
 * each value to ENCRYPTOR_LOG, so a test can see the model, field and user it was called with.
 */
const keyOf = (context: Context) =>
  createHash("sha256")
    .update(`tenant-master:${context.user?.identity ?? "(server)"}`)
    .digest();

const log = (operation: string, context: Context) => {
  if (process.env.ENCRYPTOR_LOG) appendFileSync(process.env.ENCRYPTOR_LOG, `${operation} ${context.model}.${context.field} ${context.user?.identity ?? "-"}\n`);
};

export const encryptor = {
  encrypt(plaintext: Uint8Array, context: Context): Uint8Array {
    log("encrypt", context);
    const iv = randomBytes(12);
    const cipher = createCipheriv("aes-256-gcm", keyOf(context), iv);
    return Buffer.concat([iv, cipher.update(plaintext), cipher.final(), cipher.getAuthTag()]);
  },
  decrypt(ciphertext: Uint8Array, context: Context): Uint8Array {
    log("decrypt", context);
    const bytes = Buffer.from(ciphertext);
    const decipher = createDecipheriv("aes-256-gcm", keyOf(context), bytes.subarray(0, 12));
    decipher.setAuthTag(bytes.subarray(bytes.length - 16));
    return Buffer.concat([decipher.update(bytes.subarray(12, bytes.length - 16)), decipher.final()]);
  },
};
