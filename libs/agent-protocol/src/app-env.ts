import type { Hono } from "hono";
import type { Storage } from "@agent-server/core";
import type { Engine } from "@agent-server/engine";
import type { RequestAuth } from "./auth/request-auth.js";
import type { HttpCorsConfig } from "./http/cors.js";
import type { UiBundles } from "./ui/bundle.js";

export type FetchHandler = (request: Request) => Response | Promise<Response>;

/** langgraph.json `http.app`: a Hono app (its route table is merged) or any fetch handler. */
export type UserHttpApp = { routes: unknown[]; fetch: FetchHandler } | { fetch: FetchHandler } | FetchHandler;

/** What the app needs of a metrics registry (apps/server builds it on prom-client). */
export interface HttpMetrics {
  /**
   * Called once per answered request: `route` is the template of the route that matched
   * (`/threads/:thread_id/runs`, never the raw path, so label values stay bounded), `UNMATCHED_ROUTE`
   * when none did; `durationMs` runs until the response's headers (a stream's body is not waited for).
   */
  observeRequest(route: string, method: string, status: number, durationMs: number): void;
  /** The exposition `GET /metrics` answers. */
  scrape(): Promise<{ contentType: string; body: string }>;
  /** True: `/metrics` goes through the project's auth like any route. Default: exempt, as `/ok` is. */
  authenticated?: boolean;
}

/** What the HTTP layer is built over. */
export interface AppDeps {
  engine: Engine;
  storage: Storage;
  /** Server version reported by /info. */
  version: string;
  /** `agent-server dev`: exposes /internal/truncate (refused with 403 when custom auth is configured). */
  dev?: boolean;
  /** Custom auth from langgraph.json `auth.path` (an `Auth` instance); absent means open access. */
  auth?: unknown;
  /** langgraph.json `http.cors`; absent means any origin, as on the official servers. */
  cors?: HttpCorsConfig;
  /** Largest request body in bytes, else 413 (langgraph.json `http.max_body_size`); default 25 MiB. */
  maxBodyBytes?: number;
  /** Custom routes from langgraph.json `http.app`, mounted behind auth and before the core routes. */
  httpApp?: UserHttpApp;
  /** Generative UI from langgraph.json `ui`, bundled at startup (`bundleUi`): served under /ui. */
  ui?: UiBundles;
  /**
   * Classic run streams end with an `end` event (`{run_id, status}`), as on the Python Agent Server, unless
   * a request says `stream_end=0`. Off by default: the official JS server sends none, and clients that read
   * its event lists exactly would see one more event (a request can still ask with `stream_end=1`).
   */
  streamEndEvent?: boolean;
  /** Prometheus metrics (apps/server): every request is timed and `GET /metrics` is served. Absent: neither. */
  metrics?: HttpMetrics;
  /**
   * Routers of sibling libs (the A2A adapter in `interop`), built from these deps and mounted behind
   * auth after the core routes. A factory, not a router, because they need the engine this app is
   * built over, and interop must not import this lib.
   */
  // Any env, schema and base path: each sibling router declares its own.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  extraRoutes?: Array<(deps: AppDeps) => Hono<any, any, any>>;
}

/** Hono env of every route: the deps, and the authenticated caller of this request. */
export interface AppEnv {
  Variables: {
    deps: AppDeps;
    auth: RequestAuth;
  };
}
