import { randomUUID } from "node:crypto";
import type { Server } from "@modelcontextprotocol/sdk/server/index.js";
import { WebStandardStreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js";
import { authInfoFor, type McpCaller } from "./caller.js";
import { connectChecked } from "./server.js";
import { jsonRpcError, whenBodyEnds } from "./http-responses.js";

export interface McpSessionOptions {
  /** A session unused this long (and with no call in flight) is closed. Default 1 hour. */
  idleMs?: number;
  /** Sessions kept at once by this process; when full, the least recently used idle one is closed. Default 10 000. */
  maxSessions?: number;
}

interface Session {
  owner: string;
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastUsed: number;
  /** HTTP requests of this session still being answered (a tool call's stream stays open until its result). */
  inFlight: number;
}

/**
 * Session mode: the SDK's stateful transport, one SDK server per session, kept in this process's memory.
 *
 * - `initialize` without `Mcp-Session-Id` opens a session; the response carries its id, and every later
 *   request must send it. An unknown id answers 404 (MCP: the client starts a new session).
 * - A session belongs to the user who opened it: under custom auth, another user's requests with its id
 *   answer 404 as for an unknown one (they could otherwise cancel its calls or read its stream).
 * - `notifications/cancelled` reaches the call in flight, whose run is then cancelled; DELETE ends the
 *   session and cancels its calls in flight.
 * - Sessions end with the process (a restart, `dev` reloading): clients start a new one. Behind a load
 *   balancer with several processes, route a session's requests to one process, or use stateless mode.
 */
export class McpSessions {
  private readonly sessions = new Map<string, Session>();
  private readonly idleMs: number;
  private readonly maxSessions: number;
  private sweeper: NodeJS.Timeout | undefined;

  constructor(
    private readonly newServer: () => Server,
    private readonly maxRequestBodySize: number,
    options: McpSessionOptions = {},
  ) {
    this.idleMs = options.idleMs ?? 60 * 60_000;
    this.maxSessions = options.maxSessions ?? 10_000;
  }

  async handle(request: Request, caller: McpCaller): Promise<Response> {
    const sessionId = request.headers.get("mcp-session-id");
    if (sessionId !== null) {
      const session = this.sessions.get(sessionId);
      if (!session || session.owner !== caller.key) return jsonRpcError(404, -32001, "Session not found");
      return this.answer(sessionId, session, request, caller);
    }
    if (request.method !== "POST") return jsonRpcError(400, -32000, "Bad Request: Mcp-Session-Id header is required");
    return this.open(request, caller);
  }

  /** A POST without a session id: an `initialize` opens a session; anything else gets the transport's own error. */
  private async open(request: Request, caller: McpCaller): Promise<Response> {
    if (this.sessions.size >= this.maxSessions && !this.evictIdle()) {
      return jsonRpcError(503, -32000, "Too many MCP sessions on this server: try again later", { "Retry-After": "60" });
    }
    const server = this.newServer();
    let opened: Session | undefined;
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      maxRequestBodySize: this.maxRequestBodySize,
      onsessioninitialized: (id) => {
        opened = { owner: caller.key, server, transport, lastUsed: Date.now(), inFlight: 0 };
        this.sessions.set(id, opened);
        this.startSweeping();
      },
    });
    // Chained by connect(): however the transport closes (DELETE, eviction, expiry), the session is gone.
    transport.onclose = () => {
      if (transport.sessionId !== undefined && this.sessions.get(transport.sessionId) === opened) this.sessions.delete(transport.sessionId);
    };
    await connectChecked(server, transport);
    const response = await transport.handleRequest(request, { authInfo: authInfoFor(caller) });
    if (transport.sessionId === undefined) await server.close().catch(() => undefined);
    return response;
  }

  private async answer(sessionId: string, session: Session, request: Request, caller: McpCaller): Promise<Response> {
    // Most recently used last: the eviction order.
    this.sessions.delete(sessionId);
    this.sessions.set(sessionId, session);
    session.inFlight++;
    let finished = false;
    const finish = () => {
      if (finished) return;
      finished = true;
      session.inFlight--;
      session.lastUsed = Date.now();
    };
    try {
      return whenBodyEnds(await session.transport.handleRequest(request, { authInfo: authInfoFor(caller) }), finish);
    } catch (error) {
      finish();
      throw error;
    }
  }

  /** Closes the least recently used session with nothing in flight; false when every session is busy. */
  private evictIdle(): boolean {
    for (const session of this.sessions.values()) {
      if (session.inFlight === 0) {
        void session.server.close().catch(() => undefined);
        return true;
      }
    }
    return false;
  }

  private startSweeping(): void {
    if (this.sweeper) return;
    this.sweeper = setInterval(() => this.sweep(), Math.min(this.idleMs, 60_000));
    this.sweeper.unref?.();
  }

  private sweep(): void {
    const now = Date.now();
    for (const session of [...this.sessions.values()]) {
      if (session.inFlight === 0 && now - session.lastUsed >= this.idleMs) void session.server.close().catch(() => undefined);
    }
    if (this.sessions.size === 0) {
      clearInterval(this.sweeper);
      this.sweeper = undefined;
    }
  }

  /** Closes every session (their calls in flight are cancelled). */
  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions.values()].map((session) => session.server.close().catch(() => undefined)));
    clearInterval(this.sweeper);
    this.sweeper = undefined;
  }
}
