import { Agent, request } from "node:http";

/** One generated request, as sent on the wire (no client-side URL normalization: `..` and `%2F` stay as generated). */
export interface FuzzRequest {
  method: string;
  /** Raw request target: path and query, already encoded (or deliberately not). */
  path: string;
  headers: Record<string, string>;
  body?: string;
  /** Route template the failure groups use, e.g. `POST /threads/{thread_id}/runs` or `POST /a2a/{assistant_id} [GetTask]`. */
  route: string;
  /** The input class, e.g. `body.after_seconds=9e12`, `path.thread_id=other user's id`, `raw=invalid JSON`. */
  label: string;
  /** A2A JSON-RPC requests: their answers are read as JSON-RPC envelopes (HTTP 200 with an error inside). */
  jsonRpc?: boolean;
  /** An A2A gRPC call instead of an HTTP request (grpc-exchange.ts): `method`/`path` are then its method's name. */
  grpc?: GrpcCall;
}

/** A raw call of `lf.a2a.v1.A2AService/<method>`: the request message's bytes as generated, and its metadata. */
export interface GrpcCall {
  method: string;
  bytes: Uint8Array;
  metadata: Record<string, string>;
  stream: boolean;
}

export interface FuzzResponse {
  /** HTTP status; 0 when no response came (connection reset, refused, or timeout before headers). */
  status: number;
  contentType: string;
  /** The body, cut at `BODY_LIMIT` characters. */
  body: string;
  /** Set when the request timed out (headers or body); the response, if any, is partial. */
  timedOut: boolean;
  /** Set when the connection failed without a response. */
  error?: string;
  /** Set when the body was longer than `BODY_LIMIT` (and was cut). */
  truncated?: boolean;
}

const BODY_LIMIT = 256 * 1024;

/**
 * A thread's event stream (the thread streaming protocol) never ends by itself: it is read this long
 * (its replay arrives at once), then closed, so each such request does not cost a whole timeout.
 */
const ENDLESS_STREAM_READ_MS = 300;
const ENDLESS_STREAM = / \/threads\/\{thread_id\}\/stream\/events$/;

/**
 * Keep-alive socket pool shared by every request of a campaign. The fuzz requests are sequential, so one
 * socket suffices; more would only let streams that outlive their timeout pile up.
 */
const agent = new Agent({ keepAlive: true, maxSockets: 4 });

/**
 * Sends `req` to `baseUrl` with node:http (fetch would normalize the path and refuse some headers), reads
 * the whole answer (SSE streams included) up to `timeoutMs`, and never throws.
 */
export async function send(baseUrl: string, req: FuzzRequest, timeoutMs: number): Promise<FuzzResponse> {
  const pooled = await exchange(baseUrl, req, timeoutMs, agent);
  // A pooled socket the server closed as idle (keep-alive timeout) just as this request went out: the
  // race Node documents for `request.reusedSocket`. Not the server failing; sent again on a new socket.
  if (pooled.status === 0 && pooled.reusedSocket && !pooled.timedOut) return exchange(baseUrl, req, timeoutMs, false);
  return pooled;
}

function exchange(
  baseUrl: string,
  req: FuzzRequest,
  timeoutMs: number,
  via: Agent | false,
): Promise<FuzzResponse & { reusedSocket?: boolean }> {
  const url = new URL(baseUrl);
  return new Promise((resolve) => {
    let settled = false;
    let status = 0;
    let contentType = "";
    let body = "";
    let truncated = false;
    const finish = (extra: Partial<FuzzResponse> & { reusedSocket?: boolean } = {}) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ status, contentType, body, timedOut: false, ...(truncated ? { truncated } : {}), ...extra });
    };
    const outgoing = request(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers: { ...req.headers, ...(req.body !== undefined ? { "content-length": String(Buffer.byteLength(req.body)) } : {}) },
        agent: via,
      },
      (incoming) => {
        status = incoming.statusCode ?? 0;
        contentType = String(incoming.headers["content-type"] ?? "");
        incoming.setEncoding("utf8");
        incoming.on("data", (chunk: string) => {
          if (body.length + chunk.length > BODY_LIMIT) truncated = true;
          if (body.length < BODY_LIMIT) body += chunk.slice(0, BODY_LIMIT - body.length);
        });
        incoming.on("end", () => finish());
        incoming.on("error", (error) => finish({ error: error.message }));
        if (contentType.startsWith("text/event-stream") && ENDLESS_STREAM.test(req.route)) {
          setTimeout(() => {
            finish();
            outgoing.destroy();
          }, ENDLESS_STREAM_READ_MS);
        }
        incoming.on("aborted", () => finish({ error: "response aborted" }));
      },
    );
    const timer = setTimeout(() => {
      outgoing.destroy();
      finish({ timedOut: true });
    }, timeoutMs);
    outgoing.on("error", (error) =>
      finish({ error: error.message, ...(status === 0 && outgoing.reusedSocket ? { reusedSocket: true } : {}) }),
    );
    if (req.body !== undefined) outgoing.write(req.body);
    outgoing.end();
  });
}

/** Closes the pooled sockets (end of a campaign). */
export function closeConnections(): void {
  agent.destroy();
}

/** A JSON request as a trusted user makes it (world set-up and integrity checks), parsed; throws on a non-2xx answer. */
export async function jsonCall(baseUrl: string, method: string, path: string, user: string | undefined, body?: unknown): Promise<unknown> {
  const headers: Record<string, string> = { "content-type": "application/json" };
  if (user) headers["x-user"] = user;
  const answer = await fetch(new URL(path, baseUrl), { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await answer.text();
  if (!answer.ok) throw new Error(`${method} ${path} as ${user ?? "anonymous"}: ${answer.status} ${text.slice(0, 300)}`);
  return text ? (JSON.parse(text) as unknown) : null;
}
