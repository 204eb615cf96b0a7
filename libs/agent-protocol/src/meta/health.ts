import type { Storage } from "@agent-server/core";

/** How long a health check waits for the database before calling it unavailable. */
const PING_TIMEOUT_MS = 2000;

export type ServiceStatus = "ok" | "unavailable";

/**
 * The dependencies a health check looked at, as the Python server's `/ok` reports them: `database` is
 * the storage answering one trivial statement within 2 s (a driver without `ping` is taken as up).
 * Why a dependency is down goes to `onDown` (the server's log), never into the unauthenticated answer.
 */
export async function checkServices(
  storage: Storage,
  onDown?: (service: string, error: unknown) => void,
): Promise<{ healthy: boolean; services: Record<string, ServiceStatus> }> {
  const database = await ping(storage).then(
    () => "ok" as const,
    (error: unknown) => {
      onDown?.("database", error);
      return "unavailable" as const;
    },
  );
  return { healthy: database === "ok", services: { database } };
}

async function ping(storage: Storage): Promise<void> {
  if (!storage.ping) return;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${PING_TIMEOUT_MS} ms`)), PING_TIMEOUT_MS);
  });
  try {
    await Promise.race([storage.ping(), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
