import fc from "fast-check";
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetExtendedAgentCardRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { A2AService } from "@a2a-js/sdk/server/grpc";
import { agent, params } from "./a2a-targets.js";
import { BULK_PLACES, BULK_SHAPES, bulkSendParams, GRPC_DEEP_SHAPES } from "./a2a-bulk.js";
import { toJsonText, type Labeled } from "./hostile-values.js";
import type { FuzzRequest } from "./http-exchange.js";
import { caller, type FuzzTarget } from "./request-parts.js";
import type { GenContext } from "./schema-arbitraries.js";

/** Each gRPC method: its service entry (whose serializer encodes), its v1.0 JSON decoder, and whether it streams. */
const METHODS: Record<string, { key: keyof typeof A2AService; type: { fromJSON(json: unknown): unknown } }> = {
  SendMessage: { key: "sendMessage", type: SendMessageRequest },
  SendStreamingMessage: { key: "sendStreamingMessage", type: SendMessageRequest },
  GetTask: { key: "getTask", type: GetTaskRequest },
  ListTasks: { key: "listTasks", type: ListTasksRequest },
  CancelTask: { key: "cancelTask", type: CancelTaskRequest },
  SubscribeToTask: { key: "subscribeToTask", type: SubscribeToTaskRequest },
  CreateTaskPushNotificationConfig: { key: "createTaskPushNotificationConfig", type: TaskPushNotificationConfig },
  GetTaskPushNotificationConfig: { key: "getTaskPushNotificationConfig", type: GetTaskPushNotificationConfigRequest },
  ListTaskPushNotificationConfigs: { key: "listTaskPushNotificationConfigs", type: ListTaskPushNotificationConfigsRequest },
  DeleteTaskPushNotificationConfig: { key: "deleteTaskPushNotificationConfig", type: DeleteTaskPushNotificationConfigRequest },
  GetExtendedAgentCard: { key: "getExtendedAgentCard", type: GetExtendedAgentCardRequest },
};

/**
 * A method's params (JSON, as the JSON-RPC targets make them, possibly holding raw deep/wide JSON) encoded
 * as its protobuf request with `tenant`. JSON the SDK's decoder refuses is sent as its text, which is no
 * protobuf message of the method: an undecodable request.
 */
export function encode(method: string, json: unknown, tenant: string): Labeled<Uint8Array> {
  const { key, type } = METHODS[method]!;
  const text = toJsonText(json);
  try {
    const parsed = JSON.parse(text) as Record<string, unknown>;
    const value = type.fromJSON(typeof parsed === "object" && parsed !== null ? { ...parsed, tenant } : parsed);
    return { label: "", value: A2AService[key].requestSerialize(value as never) };
  } catch {
    return { label: "undecodable: JSON text", value: new TextEncoder().encode(text) };
  }
}

/** Who calls, in which protocol version: `a2a-version` 1.0 mostly; missing or unsupported sometimes. */
function metadata(ctx: GenContext): fc.Arbitrary<Labeled<Record<string, string>>> {
  const version = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>("1.0") },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, "0.3", "2.0") },
  );
  return fc.tuple(version, caller(ctx.world)).map(([v, user]) => ({
    label: [v !== "1.0" ? `a2a-version=${v ?? "none"}` : "", user.label].filter(Boolean).join(", "),
    // rawGrpcCall sends 1.0 unless told: an empty value stands for "none". Metadata values are ASCII.
    value: { "a2a-version": v ?? "", ...(user.value !== undefined ? { "x-user": user.value.replace(/[^\x20-\x7e]/g, "?") } : {}) },
  }));
}

/** The bytes of one call: plausible params encoded, deep or wide values, random bytes, a cut message. */
function requestBytes(ctx: GenContext, method: string, tenant: string): fc.Arbitrary<Labeled<Uint8Array>> {
  const send = method === "SendMessage" || method === "SendStreamingMessage";
  const encoded = params(ctx, method, false).map((json) => encode(method, json, tenant));
  const options: fc.WeightedArbitrary<Labeled<Uint8Array>>[] = [
    { weight: 6, arbitrary: encoded.map((e) => ({ label: e.label || "valid", value: e.value })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(...GRPC_DEEP_SHAPES).map(([label, bytes]) => ({ label: `raw ${label}`, value: bytes() })),
    },
    { weight: 1, arbitrary: fc.uint8Array({ maxLength: 64 }).map((value) => ({ label: "random bytes", value })) },
    {
      weight: 1,
      arbitrary: fc.tuple(encoded, fc.nat()).map(([e, cut]) => ({
        label: "cut message",
        value: e.value.slice(0, e.value.length > 1 ? cut % e.value.length : 0),
      })),
    },
  ];
  if (send) {
    const bulk = fc
      .tuple(fc.constantFrom(...BULK_SHAPES), fc.constantFrom(...BULK_PLACES.filter((p) => p !== "body")))
      .map(([[label, value], place]) => {
        const e = encode(method, bulkSendParams(false, value, place), tenant);
        return { label: `${place}=${label}${e.label ? ` (${e.label})` : ""}`, value: e.value };
      });
    options.push({ weight: 2, arbitrary: bulk });
  }
  return fc.oneof(...options);
}

/** The A2A gRPC binding (`lf.a2a.v1.A2AService` on `--grpc-port`): every method, with generated request bytes. */
export function a2aGrpcTarget(ctx: GenContext): FuzzTarget {
  const request = fc.constantFrom(...Object.keys(METHODS)).chain((method) =>
    fc
      .record({
        method: fc.constant(method),
        tenant: fc.oneof(
          { weight: 3, arbitrary: fc.constant({ label: "", value: "echo" }) },
          { weight: 1, arbitrary: fc.constant({ label: "tenant=default", value: "" }) },
          {
            weight: 1,
            arbitrary: agent(ctx).map((a) => ({ label: a.label.replace("agent", "tenant"), value: decodeURIComponent(a.value) })),
          },
        ),
        metadata: metadata(ctx),
      })
      .chain((r) => requestBytes(ctx, r.method, r.tenant.value).map((bytes) => ({ ...r, bytes }))),
  );
  return {
    name: "A2A gRPC",
    weight: 4,
    arbitrary: request.map((r) => grpcRequest(r.method, r.bytes, r.metadata, [r.tenant.label])),
  };
}

/** A generated gRPC call as the campaign carries it. */
export function grpcRequest(
  method: string,
  bytes: Labeled<Uint8Array>,
  metadata: Labeled<Record<string, string>>,
  labels: string[] = [],
): FuzzRequest {
  return {
    method: "GRPC",
    path: `/lf.a2a.v1.A2AService/${method}`,
    headers: metadata.value,
    // The message as text, for the oracles that look for what a request named (ids are ASCII in it).
    body: Buffer.from(bytes.value).toString("latin1"),
    route: `gRPC A2AService/${method}`,
    label: [bytes.label, metadata.label, ...labels].filter(Boolean).join(", ") || "valid",
    grpc: {
      method,
      bytes: bytes.value,
      metadata: metadata.value,
      stream: method === "SendStreamingMessage" || method === "SubscribeToTask",
    },
  };
}
