import { AsyncLocalStorage } from "node:async_hooks";

/** The user an encryption is made for: who asked (a request's authenticated user, a run's owner). */
export interface EncryptionUser {
  identity: string;
  [key: string]: unknown;
}

const current = new AsyncLocalStorage<EncryptionUser | undefined>();

/** Runs `fn` with `user` as the one values are sealed for (the API's auth middleware, a run's execution). */
export function withEncryptionUser<T>(user: EncryptionUser | undefined, fn: () => T): T {
  return current.run(user, fn);
}

/** The user of the request or run in progress, if any. */
export function encryptionUser(): EncryptionUser | undefined {
  return current.getStore();
}
