import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { gunzipSync } from "node:zlib";

/** One span as the receiver got it, from OTLP JSON or protobuf alike. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** "" for a root span. */
  parentSpanId: string;
  name: string;
  kind: number;
  /** Start and end, in ms since the epoch. */
  startMs: number;
  endMs: number;
  attributes: Record<string, unknown>;
  /** The attributes of the resource that sent it (service.name, service.instance.id, ...). */
  resource: Record<string, unknown>;
}

export interface OtlpReceiver {
  /** Base URL for `OTEL_EXPORTER_OTLP_ENDPOINT` (the exporters append `/v1/traces`). */
  url: string;
  spans(): ReceivedSpan[];
  /** The content type of every export request received. */
  contentTypes(): string[];
  close(): Promise<void>;
}

/**
 * An OTLP/HTTP trace receiver on loopback, as a collector would be: accepts `POST /v1/traces` in JSON
 * (`application/json`) or protobuf (`application/x-protobuf`, decoded by the small reader below) and
 * keeps every span.
 */
export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const spans: ReceivedSpan[] = [];
  const types: string[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on("data", (chunk: Buffer) => chunks.push(chunk));
    request.on("end", () => {
      if (request.method !== "POST" || request.url !== "/v1/traces") {
        response.writeHead(404).end();
        return;
      }
      let body = Buffer.concat(chunks);
      if (request.headers["content-encoding"] === "gzip") body = gunzipSync(body);
      const type = request.headers["content-type"] ?? "";
      types.push(type);
      try {
        spans.push(...(type.includes("json") ? fromJson(JSON.parse(body.toString("utf8"))) : fromProtobuf(body)));
      } catch (error) {
        response.writeHead(400).end(String(error));
        return;
      }
      if (type.includes("json")) response.writeHead(200, { "content-type": "application/json" }).end("{}");
      else response.writeHead(200, { "content-type": "application/x-protobuf" }).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    spans: () => [...spans],
    contentTypes: () => [...types],
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/** The environment that turns tracing on, exporting to the test's receiver without waiting long. */
export function otlpEnv(receiverUrl: string, protocol: "http/json" | "http/protobuf", instance: string): Record<string, string> {
  return {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiverUrl,
    OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
    OTEL_BSP_SCHEDULE_DELAY: "100",
    OTEL_SERVICE_NAME: "agent-server-test",
    OTEL_RESOURCE_ATTRIBUTES: `service.instance.id=${instance}`,
  };
}

/** A caller's W3C trace context: a fresh trace id and the caller's own span id. */
export function callerContext(): { traceId: string; spanId: string; traceparent: string } {
  const traceId = crypto.randomUUID().replaceAll("-", "");
  const spanId = crypto.randomUUID().replaceAll("-", "").slice(0, 16);
  return { traceId, spanId, traceparent: `00-${traceId}-${spanId}-01` };
}

/** Waits until the spans of `traceId` include every name in `names`; fails after 30 s saying which are missing. */
export async function traceWith(receiver: OtlpReceiver, traceId: string, names: (string | RegExp)[]): Promise<ReceivedSpan[]> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const spans = receiver.spans().filter((s) => s.traceId === traceId);
    const missing = names.filter((name) => !spans.some((s) => (typeof name === "string" ? s.name === name : name.test(s.name))));
    if (missing.length === 0) return spans;
    if (Date.now() > deadline) {
      throw new Error(
        `trace ${traceId} lacks ${missing.join(", ")}; it has ${spans.map((s) => s.name).join(", ")}; all traces: ${receiver.spans().length} spans`,
      );
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const byId = (spans: ReceivedSpan[]) => new Map(spans.map((s) => [s.spanId, s]));

/** The names on the way from `span` up to the root of what was received of its trace. */
export function ancestry(spans: ReceivedSpan[], span: ReceivedSpan): string[] {
  const index = byId(spans);
  const names: string[] = [];
  for (let at: ReceivedSpan | undefined = span; at; at = index.get(at.parentSpanId)) names.push(at.name);
  return names;
}

// --- OTLP JSON ------------------------------------------------------------------------------------

interface JsonKeyValue {
  key: string;
  value: Record<string, unknown>;
}

function fromJson(body: {
  resourceSpans?: {
    resource?: { attributes?: JsonKeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        startTimeUnixNano: string;
        endTimeUnixNano: string;
        attributes?: JsonKeyValue[];
      }[];
    }[];
  }[];
}): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const rs of body.resourceSpans ?? []) {
    const resource = jsonAttributes(rs.resource?.attributes);
    for (const ss of rs.scopeSpans ?? []) {
      for (const span of ss.spans ?? []) {
        out.push({
          traceId: span.traceId,
          spanId: span.spanId,
          parentSpanId: span.parentSpanId ?? "",
          name: span.name,
          kind: span.kind,
          startMs: Number(BigInt(span.startTimeUnixNano) / 1_000_000n),
          endMs: Number(BigInt(span.endTimeUnixNano) / 1_000_000n),
          attributes: jsonAttributes(span.attributes),
          resource,
        });
      }
    }
  }
  return out;
}

function jsonAttributes(list: JsonKeyValue[] | undefined): Record<string, unknown> {
  return Object.fromEntries((list ?? []).map(({ key, value }) => [key, jsonValue(value)]));
}

function jsonValue(value: Record<string, unknown>): unknown {
  if ("stringValue" in value) return value.stringValue;
  if ("intValue" in value) return Number(value.intValue);
  if ("doubleValue" in value) return Number(value.doubleValue);
  if ("boolValue" in value) return value.boolValue;
  if ("arrayValue" in value) return ((value.arrayValue as { values?: Record<string, unknown>[] }).values ?? []).map(jsonValue);
  return undefined;
}

// --- OTLP protobuf (opentelemetry/proto/collector/trace/v1 ExportTraceServiceRequest) --------------

type Field = { no: number; wire: number; bytes?: Buffer; number?: bigint };

/** The fields of one protobuf message, in order (varint, fixed64, length-delimited, fixed32). */
function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let at = 0;
  const varint = (): bigint => {
    let result = 0n;
    let shift = 0n;
    for (;;) {
      const byte = buffer[at++]!;
      result |= BigInt(byte & 0x7f) << shift;
      if ((byte & 0x80) === 0) return result;
      shift += 7n;
    }
  };
  while (at < buffer.length) {
    const key = Number(varint());
    const no = key >> 3;
    const wire = key & 7;
    if (wire === 0) out.push({ no, wire, number: varint() });
    else if (wire === 1) {
      out.push({ no, wire, number: buffer.readBigUInt64LE(at) });
      at += 8;
    } else if (wire === 2) {
      const length = Number(varint());
      out.push({ no, wire, bytes: buffer.subarray(at, at + length) });
      at += length;
    } else if (wire === 5) {
      out.push({ no, wire, number: BigInt(buffer.readUInt32LE(at)) });
      at += 4;
    } else throw new Error(`protobuf wire type ${wire} not expected in OTLP traces`);
  }
  return out;
}

const sub = (list: Field[], no: number): Buffer[] => list.filter((f) => f.no === no && f.bytes).map((f) => f.bytes!);

function fromProtobuf(body: Buffer): ReceivedSpan[] {
  const out: ReceivedSpan[] = [];
  for (const resourceSpans of sub(fields(body), 1)) {
    const rs = fields(resourceSpans);
    const resource = Object.fromEntries(sub(rs, 1).flatMap((r) => sub(fields(r), 1).map(protoKeyValue)));
    for (const scopeSpans of sub(rs, 2)) {
      for (const spanBytes of sub(fields(scopeSpans), 2)) {
        const span = fields(spanBytes);
        const hex = (no: number) => sub(span, no)[0]?.toString("hex") ?? "";
        out.push({
          traceId: hex(1),
          spanId: hex(2),
          parentSpanId: hex(4),
          name: sub(span, 5)[0]?.toString("utf8") ?? "",
          kind: Number(span.find((f) => f.no === 6)?.number ?? 0n),
          startMs: Number((span.find((f) => f.no === 7)?.number ?? 0n) / 1_000_000n),
          endMs: Number((span.find((f) => f.no === 8)?.number ?? 0n) / 1_000_000n),
          attributes: Object.fromEntries(sub(span, 9).map(protoKeyValue)),
          resource,
        });
      }
    }
  }
  return out;
}

function protoKeyValue(bytes: Buffer): [string, unknown] {
  const kv = fields(bytes);
  const key = sub(kv, 1)[0]?.toString("utf8") ?? "";
  const value = sub(kv, 2)[0];
  return [key, value ? protoAnyValue(value) : undefined];
}

function protoAnyValue(bytes: Buffer): unknown {
  const [field] = fields(bytes);
  if (!field) return undefined;
  if (field.no === 1) return field.bytes!.toString("utf8");
  if (field.no === 2) return field.number !== 0n;
  if (field.no === 3) return Number(BigInt.asIntN(64, field.number!));
  if (field.no === 4) return Buffer.from(new BigUint64Array([field.number!]).buffer).readDoubleLE(0);
  if (field.no === 5) return sub(fields(field.bytes!), 1).map(protoAnyValue);
  return undefined;
}
