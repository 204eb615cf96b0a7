import { BULK_PLACES, BULK_SHAPES, bulkSendParams, GRPC_DEEP_SHAPES, type BulkPlace } from "./a2a-bulk.js";
import { grpcRequest, encode } from "./grpc-targets.js";
import { jsonObject, type RawJson } from "./hostile-values.js";
import type { FuzzRequest } from "./http-exchange.js";
import { buildRequest } from "./request-parts.js";
import type { World } from "./world.js";

/** The message-sending method of each JSON binding: its route, path and (JSON-RPC) method. */
const JSON_SENDS: { route: string; path: string; legacy: boolean; method?: string }[] = [
  { route: "POST /a2a/{assistant_id} v1.0 [SendMessage]", path: "/a2a/echo", legacy: false, method: "SendMessage" },
  { route: "POST /a2a/{assistant_id} v1.0 [SendStreamingMessage]", path: "/a2a/echo", legacy: false, method: "SendStreamingMessage" },
  { route: "POST /a2a/{assistant_id} v0.3 [message/send]", path: "/a2a/echo", legacy: true, method: "message/send" },
  { route: "POST /a2a/{assistant_id} v0.3 [message/stream]", path: "/a2a/echo", legacy: true, method: "message/stream" },
  { route: "POST /a2a/{assistant_id}/message:send", path: "/a2a/echo/message:send", legacy: false },
  { route: "POST /a2a/{assistant_id}/message:stream", path: "/a2a/echo/message:stream", legacy: false },
];

/**
 * Every 5,000-deep shape at every place on each binding's send methods (JSON-RPC v1.0 and v0.3,
 * HTTP+JSON, gRPC), once, plus a wide data part on each: the deterministic part of the fuzz for deep and
 * wide input (issue 25), run through the campaign's oracles. The random targets mix the same shapes with
 * mutations. The caller is the world's own user (the attacker on an auth server).
 */
export function a2aBulkSweep(world: World): FuzzRequest[] {
  const user = { label: "", value: world.mine.user };
  const deep = BULK_SHAPES.filter(([label]) => label.startsWith("depth 5000"));
  const wide = BULK_SHAPES.find(([label]) => label === "20000 keys")!;
  const cases: [string, RawJson, BulkPlace][] = [
    ...deep.flatMap(([label, value]) => BULK_PLACES.map((place): [string, RawJson, BulkPlace] => [label, value, place])),
    [wide[0], wide[1], "data part"],
  ];
  const json = JSON_SENDS.flatMap((send) =>
    cases.map(([label, value, place]) => {
      const params = bulkSendParams(send.legacy, value, place);
      const body = send.method
        ? jsonObject([
            ["jsonrpc", "2.0"],
            ["id", 1],
            ["method", send.method],
            ["params", params],
          ])
        : params;
      return buildRequest({
        method: "POST",
        path: send.path,
        route: send.route,
        labels: [`${place}=${label}`],
        user,
        contentType: { label: "", value: "application/json" },
        body: { value: body },
        extraHeaders: send.legacy ? {} : { "A2A-Version": "1.0" },
        sinkUrl: world.sinkUrl,
        jsonRpc: !!send.method,
      });
    }),
  );
  const headers: Record<string, string> = world.mine.user !== undefined ? { "x-user": world.mine.user } : {};
  const metadata = { label: "", value: headers };
  const grpc = ["SendMessage", "SendStreamingMessage"].flatMap((method) => [
    ...GRPC_DEEP_SHAPES.map(([label, bytes]) => grpcRequest(method, { label: `raw ${label}`, value: bytes() }, metadata)),
    grpcRequest(
      method,
      { ...encode(method, bulkSendParams(false, wide[1], "data part"), "echo"), label: "data part=20000 keys" },
      metadata,
    ),
  ]);
  return [...json, ...grpc];
}
