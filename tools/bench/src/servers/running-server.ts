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
  stop(): Promise<void>;
}
