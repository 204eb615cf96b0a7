export { aesKey, jsonKeysFromEnvironment, keyId, keysFromEnvironment, type AesKey, type KeyEnvironment } from "./keys.js";
export {
  EncryptionKeyError,
  fieldCipher,
  isSealedBytes,
  isSealedJson,
  KEY_CHECK_AAD,
  KEY_CHECK_VALUE,
  NO_ENCRYPTION,
  type FieldCipher,
  type SealedJson,
} from "./field-cipher.js";
export { sealedSerde } from "./sealed-serde.js";
export { customCipher, type CustomEncryptor, type EncryptionContext } from "./custom-cipher.js";
export { encryptionUser, withEncryptionUser, type EncryptionUser } from "./context.js";
