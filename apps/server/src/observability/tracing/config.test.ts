import { describe, expect, it } from "vitest";
import { otlpProtocol, tracesRequested } from "./config.js";

describe("when tracing is on", () => {
  it("only when an OTLP endpoint or a traces exporter is configured, and never when disabled", () => {
    expect(tracesRequested({})).toBe(false);
    expect(tracesRequested({ OTEL_SERVICE_NAME: "agents", OTEL_TRACES_SAMPLER: "always_on" })).toBe(false);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://collector:4318/v1/traces" })).toBe(true);
    expect(tracesRequested({ OTEL_EXPORTER_OTLP_ENDPOINT: "  " })).toBe(false);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: "otlp" })).toBe(true);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: "console" })).toBe(true);
    expect(tracesRequested({ OTEL_TRACES_EXPORTER: "none", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(false);
    expect(tracesRequested({ OTEL_SDK_DISABLED: "true", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(false);
    expect(tracesRequested({ OTEL_SDK_DISABLED: "false", OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318" })).toBe(true);
  });

  it("sends http/protobuf unless http/json is asked for; grpc falls back to http/protobuf, named", () => {
    expect(otlpProtocol({})).toEqual({ protocol: "http/protobuf" });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json" })).toEqual({ protocol: "http/json" });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "http/json", OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "http/protobuf" })).toEqual({
      protocol: "http/protobuf",
    });
    expect(otlpProtocol({ OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" })).toEqual({ protocol: "http/protobuf", unsupported: "grpc" });
  });
});
