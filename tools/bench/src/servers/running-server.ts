import type { ServerName } from "../results.js";

/** A server under test, started by the bench, reachable on loopback. */
export interface RunningServer {
  /** How the report names it: "ours (sqlite)", "official", "reference". */
  name: ServerName;
  /** Base URL, without a trailing slash: the LangGraph API's `apiUrl`. */
  url: string;
  /** What `ClientFactory.createFromUrl` takes for the echo agent (trailing slash: the card path is relative). */
  a2aUrl: string;
  /** The server process itself, whose RSS the soak samples. */
  pid: number;
  /** The end of what the server printed, and how it exited if it did: for error messages. */
  output(): string;
  stop(): Promise<void>;
}

/** Runs `fn` against `server`; a failure says what the server printed (it may have crashed). */
export async function explainFailures<T>(server: RunningServer, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (error) {
    throw new Error(
      `${server.name} (pid ${server.pid}): ${String(error)}
--- its output ends with:\n${server.output().slice(-3000)}`,
      {
        cause: error,
      },
    );
  }
}
