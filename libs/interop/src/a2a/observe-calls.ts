import type { A2ARequestHandler } from "@a2a-js/sdk/server";

/** The A2A binding a call came through. */
export type A2ABinding = "jsonrpc" | "http+json" | "grpc";

/**
 * Told once per A2A call that reached a request handler, when it ends: `method` is the v1.0 method
 * name (a v0.3 `message/send` is `SendMessage`); a stream ends when its last event went out, it failed,
 * or the client left (counted `ok`). Calls refused before (unparseable, unknown method, wrong version)
 * are not counted here; the HTTP metrics see them.
 */
export type A2ACallObserver = (method: string, binding: A2ABinding, outcome: "ok" | "error") => void;

/** `A2ARequestHandler` method -> v1.0 method name. */
const METHOD_NAMES: Readonly<Record<string, string>> = {
  sendMessage: "SendMessage",
  sendMessageStream: "SendStreamingMessage",
  getTask: "GetTask",
  cancelTask: "CancelTask",
  listTasks: "ListTasks",
  resubscribe: "SubscribeToTask",
  createTaskPushNotificationConfig: "CreateTaskPushNotificationConfig",
  getTaskPushNotificationConfig: "GetTaskPushNotificationConfig",
  listTaskPushNotificationConfigs: "ListTaskPushNotificationConfigs",
  deleteTaskPushNotificationConfig: "DeleteTaskPushNotificationConfig",
  getAuthenticatedExtendedAgentCard: "GetExtendedAgentCard",
};

/** `handler` with each call reported to `observe`; `handler` itself without an observer. */
export function observedHandler(handler: A2ARequestHandler, binding: A2ABinding, observe: A2ACallObserver | undefined): A2ARequestHandler {
  if (!observe) return handler;
  return new Proxy(handler, {
    get: (target, property, receiver) => {
      const value: unknown = Reflect.get(target, property, receiver);
      const method = typeof property === "string" ? METHOD_NAMES[property] : undefined;
      if (typeof value !== "function" || method === undefined) return value;
      return (...args: unknown[]) => {
        const done = (outcome: "ok" | "error") => observe(method, binding, outcome);
        let result: unknown;
        try {
          result = (value as (...a: unknown[]) => unknown).apply(target, args);
        } catch (error) {
          done("error");
          throw error;
        }
        if (isAsyncGenerator(result)) return observedStream(result, done);
        if (result instanceof Promise) {
          return result.then(
            (answer: unknown) => {
              done("ok");
              return answer;
            },
            (error: unknown) => {
              done("error");
              throw error;
            },
          );
        }
        done("ok");
        return result;
      };
    },
  });
}

async function* observedStream<T>(
  stream: AsyncGenerator<T, void, undefined>,
  done: (outcome: "ok" | "error") => void,
): AsyncGenerator<T, void, undefined> {
  let failed = false;
  try {
    yield* stream;
  } catch (error) {
    failed = true;
    throw error;
  } finally {
    done(failed ? "error" : "ok");
  }
}

function isAsyncGenerator(value: unknown): value is AsyncGenerator<unknown, void, undefined> {
  return (
    typeof value === "object" && value !== null && typeof (value as { next?: unknown }).next === "function" && Symbol.asyncIterator in value
  );
}
