import { resolve } from "node:path";
import {
  customCipher,
  fieldCipher,
  InvalidInputError,
  jsonKeysFromEnvironment,
  KEY_CHECK_AAD,
  KEY_CHECK_VALUE,
  keysFromEnvironment,
  type CustomEncryptor,
  type FieldCipher,
  type Storage,
} from "@agent-server/core";
import { importProjectFile } from "../project-module.js";

/** langgraph.json's `encryption` key: `{ "path": "./enc.ts:encryptor" }` names a custom encryptor. */
export interface ProjectEncryption {
  path?: string;
}

/** The cipher, and what it was made of, for the checks at start and `keys rotate`. */
export interface Encryption {
  cipher: FieldCipher;
  /** Every AES key id given (the primary one first). */
  keyIds: string[];
  /** A custom encryptor seals new values (langgraph.json `encryption.path`). */
  custom?: boolean;
}

/**
 * Encryption at rest from the environment (after the project's env file is applied): LANGGRAPH_AES_KEY
 * seals, LANGGRAPH_AES_FALLBACK_KEYS also open, LANGGRAPH_AES_JSON_KEYS names metadata keys to seal.
 * A bad value stops the start with the variable named (InvalidInputError: exit 2).
 */
export function encryptionFromEnvironment(env: NodeJS.ProcessEnv = process.env): Encryption {
  return aesEncryption(env);
}

/**
 * The project's encryption: langgraph.json `encryption.path`'s custom encryptor when it names one (AES
 * keys from the environment still open what they sealed before), else the environment's AES keys.
 */
export async function loadEncryption(project: ProjectEncryption | undefined, projectDir: string, env = process.env): Promise<Encryption> {
  const aes = aesEncryption(env);
  if (!project?.path) return aes;
  const [file, name = "default"] = project.path.split(":");
  const module = await importProjectFile(resolve(projectDir, file!));
  const encryptor = module[name] as Partial<CustomEncryptor> | undefined;
  if (typeof encryptor?.encrypt !== "function" || typeof encryptor.decrypt !== "function") {
    throw new InvalidInputError(
      `langgraph.json encryption.path "${project.path}": export "${name}" must be an object with encrypt(bytes, context) and decrypt(bytes, context)`,
    );
  }
  return { cipher: customCipher(encryptor as CustomEncryptor, aes.cipher), keyIds: aes.keyIds, custom: true };
}

function aesEncryption(env: NodeJS.ProcessEnv): Encryption {
  const { primary, fallbacks } = keysFromEnvironment(env);
  const jsonKeys = jsonKeysFromEnvironment(env);
  return { cipher: fieldCipher(primary, fallbacks, jsonKeys), keyIds: [primary, ...fallbacks].flatMap((k) => (k ? [k.id] : [])) };
}

/**
 * Before anything is served: the keys that sealed data in this storage must be among the keys given,
 * each proved by the check value it sealed; a key given for the first time is recorded. Otherwise the
 * start stops with one line naming the key ids (never garbage read as data). A driver that cannot seal
 * refuses a key, except memory, which keeps nothing on disk.
 */
export async function checkStorageKeys(storage: Storage, encryption: Encryption): Promise<void> {
  const { keyIds } = encryption;
  const cipher = encryption.cipher;
  const repo = storage.encryption;
  if (!repo) {
    if (cipher.sealing && storage.kind !== "memory") {
      throw new InvalidInputError(
        `LANGGRAPH_AES_KEY is set, but the storage driver "${storage.kind}" cannot seal data (it has no EncryptionRepo): unset it, or use sqlite or postgres`,
      );
    }
    return;
  }
  const recorded = await repo.keys();
  const unknown = recorded.filter((k) => !keyIds.includes(k.keyId)).map((k) => k.keyId);
  if (unknown.length > 0) {
    throw new InvalidInputError(
      keyIds.length > 0
        ? `the data is sealed with key ${unknown.join(", ")}, which is neither LANGGRAPH_AES_KEY (key ${keyIds[0]}) nor in LANGGRAPH_AES_FALLBACK_KEYS: start with the key the data was written with (docs/security.md)`
        : `the data is sealed with key ${unknown.join(", ")}: start with LANGGRAPH_AES_KEY set to it (docs/security.md)`,
    );
  }
  for (const key of recorded) {
    if (cipher.openJson(key.check, KEY_CHECK_AAD) !== KEY_CHECK_VALUE) {
      throw new InvalidInputError(`key ${key.keyId} does not open its own check value: the stored key record was altered`);
    }
  }
  // AES keys prove themselves with their check value; a custom encryptor's keys are its own to manage.
  if (cipher.sealing && cipher.keyId && !recorded.some((k) => k.keyId === cipher.keyId)) {
    await repo.recordKey({ keyId: cipher.keyId!, check: cipher.sealJson(KEY_CHECK_VALUE, KEY_CHECK_AAD) });
  }
}
