/**
 * Opening the project's storage: the built-in drivers (memory, SQLite, PostgreSQL), a driver module
 * (`--storage ./driver.ts:storage`, langgraph.json `storage.path`), and encryption at rest around it.
 */
export {
  DatabaseUnreachableError,
  dataDir,
  openStorage,
  postgresPoolSize,
  SQLITE_FILE,
  sqlitePath,
  type OpenedStorage,
  type ProjectStorage,
  type ProjectStorageSettings,
} from "./storage.js";
export { openCustomStorage, type StorageModuleOrigin } from "./custom-storage.js";
export { checkStorageKeys, encryptionFromEnvironment, loadEncryption, type Encryption, type ProjectEncryption } from "./encryption.js";
