import {
  contextFromTraceparent,
  contextWithSpan,
  hasActiveSpan,
  injectTraceHeaders,
  markFailed,
  recordError,
  SpanKind,
  startSpan,
  traceparentOf,
  tracingEnabled,
  type Delivery,
} from "@agent-server/core";

// A webhook or A2A push notification is written to the outbox when its run settles, and POSTed later,
// perhaps by another process, perhaps after a restart. The run's trace context is stored with the
// delivery (as its `traceparent` header), and each attempt to send it is a client span in that trace
// whose own context the request carries.

/** The headers a delivery is written with: tracing on and inside a trace, plus the active `traceparent`. */
export function withDeliveryTraceparent(headers: Record<string, string> | undefined): Record<string, string> | undefined {
  if (!tracingEnabled() || !hasActiveSpan()) return headers;
  const traceparent = traceparentOf();
  return traceparent ? { ...headers, traceparent } : headers;
}

/**
 * One attempt at sending a delivery as a client span (`POST <kind>`), its `traceparent` set on `headers`
 * (the outgoing request's) to the span's own. With tracing off, `post` as it is.
 */
export function traceDelivery(delivery: Delivery, headers: Headers, post: () => Promise<number>): Promise<number> {
  if (!tracingEnabled()) return post();
  const stored = delivery.headers ?? {};
  const parent = contextFromTraceparent(stored.traceparent, stored.tracestate);
  const target = URL.canParse(delivery.url) ? new URL(delivery.url) : undefined;
  const span = startSpan(
    `POST ${delivery.kind}`,
    {
      kind: SpanKind.CLIENT,
      attributes: {
        "http.request.method": "POST",
        // Only the origin: a webhook's path or query may carry a receiver's secret.
        ...(target ? { "server.address": target.hostname, "url.scheme": target.protocol.replace(":", "") } : { "url.path": "(relative)" }),
        ...(target?.port ? { "server.port": Number(target.port) } : {}),
        "agent_server.delivery.id": delivery.delivery_id,
        "agent_server.delivery.kind": delivery.kind,
        "agent_server.delivery.attempt": delivery.attempts,
        ...(delivery.run_id ? { "agent_server.run.id": delivery.run_id } : {}),
      },
    },
    parent,
  );
  const outgoing: Record<string, string> = {};
  injectTraceHeaders(outgoing, contextWithSpan(span, parent));
  for (const [name, value] of Object.entries(outgoing)) headers.set(name, value);
  return post().then(
    (status) => {
      span.setAttribute("http.response.status_code", status);
      if (status >= 400) markFailed(span, `HTTP ${status}`);
      span.end();
      return status;
    },
    (error: unknown) => {
      recordError(span, error);
      span.end();
      throw error;
    },
  );
}
