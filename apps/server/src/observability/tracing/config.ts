/**
 * Whether the environment asks for traces, read without loading any OpenTelemetry SDK: an OTLP endpoint
 * (`OTEL_EXPORTER_OTLP_ENDPOINT`, `OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`) or an exporter named in
 * `OTEL_TRACES_EXPORTER` (`otlp`, `console`), unless `OTEL_SDK_DISABLED=true` or `OTEL_TRACES_EXPORTER=none`.
 */
export function tracesRequested(env: NodeJS.ProcessEnv): boolean {
  if (env.OTEL_SDK_DISABLED?.trim().toLowerCase() === "true") return false;
  const exporters = traceExporters(env);
  if (exporters.includes("none")) return false;
  if (exporters.length > 0) return true;
  return Boolean(env.OTEL_EXPORTER_OTLP_ENDPOINT?.trim() || env.OTEL_EXPORTER_OTLP_TRACES_ENDPOINT?.trim());
}

/** `OTEL_TRACES_EXPORTER` as a list (empty when unset). */
export function traceExporters(env: NodeJS.ProcessEnv): string[] {
  return (env.OTEL_TRACES_EXPORTER ?? "")
    .split(",")
    .map((name) => name.trim().toLowerCase())
    .filter((name) => name !== "");
}

export type OtlpProtocol = "http/json" | "http/protobuf";

/**
 * The OTLP protocol for traces: `OTEL_EXPORTER_OTLP_TRACES_PROTOCOL`, then `OTEL_EXPORTER_OTLP_PROTOCOL`,
 * default `http/protobuf` (the specification's). `grpc` is not supported: `unsupported` names it, and
 * http/protobuf is used instead.
 */
export function otlpProtocol(env: NodeJS.ProcessEnv): { protocol: OtlpProtocol; unsupported?: string } {
  const asked = (env.OTEL_EXPORTER_OTLP_TRACES_PROTOCOL ?? env.OTEL_EXPORTER_OTLP_PROTOCOL ?? "").trim().toLowerCase();
  if (asked === "" || asked === "http/protobuf") return { protocol: "http/protobuf" };
  if (asked === "http/json") return { protocol: "http/json" };
  return { protocol: "http/protobuf", unsupported: asked };
}

/** A number from the environment, or `fallback` when unset or not a non-negative number. */
export function envNumber(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  return Number.isFinite(value) && value >= 0 ? value : fallback;
}
