import { trace, type Tracer } from "@opentelemetry/api";

/** The instrumentation scope of every span the server makes. */
export const TRACER_NAME = "agent-server";

export function tracer(): Tracer {
  return trace.getTracer(TRACER_NAME);
}
