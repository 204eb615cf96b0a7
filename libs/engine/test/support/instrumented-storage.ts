import type { Storage } from "@agent-server/core";

/** One call the engine made to a repository of the wrapped storage. */
export interface StorageCall {
  repo: string;
  method: string;
  args: unknown[];
  /** What the driver answered, once it has (absent for a call that failed or is still under way). */
  result?: unknown;
}

/** The repositories whose calls are recorded (and can be made to fail). */
const REPOS = ["assistants", "threads", "runs", "events", "deliveries", "crons", "store"] as const;

export interface InstrumentedStorage {
  storage: Storage;
  /** Every call so far, in the order they were made (settled or not). */
  calls: StorageCall[];
  /**
   * Decides, per call, whether it throws instead of reaching the driver; set and reset by the test.
   * The real driver underneath is untouched by a call that throws here.
   */
  fault: ((call: StorageCall) => boolean) | undefined;
  /** What a call that `fault` fails throws; a plain `Error` ("injected failure: repo.method") when unset. */
  faultError: ((call: StorageCall) => Error) | undefined;
  /**
   * Awaited before each call reaches the driver (after it is recorded, before `fault` is asked): a test
   * holds a chosen call at a gate it opens later.
   */
  before: ((call: StorageCall) => Promise<void> | void) | undefined;
  /**
   * Awaited after the driver answered a call, before its caller gets the answer: a test holds the engine
   * right after a write landed (settlement after its terminal write, say).
   */
  after: ((call: StorageCall) => Promise<void> | void) | undefined;
}

/**
 * A real driver behind a thin wrapper that records every repository call and throws where the test's
 * `fault` says so: for injecting a storage failure at a chosen step and counting writes. Methods a
 * driver lacks (the optional result methods) stay absent.
 */
export function instrumentStorage(inner: Storage): InstrumentedStorage {
  const instrumented: InstrumentedStorage = {
    storage: undefined as unknown as Storage,
    calls: [],
    fault: undefined,
    faultError: undefined,
    before: undefined,
    after: undefined,
  };
  const wrapRepo = (repoName: string, repo: object) =>
    new Proxy(repo, {
      get(target, property, receiver) {
        const value = Reflect.get(target, property, receiver) as unknown;
        if (typeof value !== "function" || typeof property !== "string") return value;
        return async (...args: unknown[]) => {
          const call: StorageCall = { repo: repoName, method: property, args };
          instrumented.calls.push(call);
          await instrumented.before?.(call);
          if (instrumented.fault?.(call)) throw instrumented.faultError?.(call) ?? new Error(`injected failure: ${repoName}.${property}`);
          call.result = await (value as (...a: unknown[]) => unknown).apply(target, args);
          await instrumented.after?.(call);
          return call.result;
        };
      },
    });
  const repos = new Map<string, object>(REPOS.map((name) => [name, wrapRepo(name, inner[name])]));
  instrumented.storage = new Proxy(inner, {
    get(target, property, receiver) {
      if (typeof property === "string" && repos.has(property)) return repos.get(property);
      const value = Reflect.get(target, property, receiver) as unknown;
      return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  return instrumented;
}
