import fc from "fast-check";
import { A2A_V03_METHODS, A2A_V1_METHODS } from "@agent-server/interop";
import { bulkSend } from "./a2a-bulk.js";
import { contentType, hostileSegment, jsonObject, type Labeled } from "./hostile-values.js";
import { buildRequest, caller, hostileQueryValue, type FuzzTarget } from "./request-parts.js";
import { idValue, mutatedBody, type GenContext } from "./schema-arbitraries.js";

const BOGUS_METHODS = ["", "rpc.discover", "__proto__", "constructor", "toString", "hasOwnProperty", "tasks/list", "sendMessage"];

/** The HTTP+JSON binding's routes (libs/interop/src/a2a/transports/http-json.ts), `{id}` a task id. */
export const A2A_HTTP_ROUTES: [method: string, subpath: string][] = [
  ["POST", "/message:send"],
  ["POST", "/message:stream"],
  ["GET", "/tasks/{id}"],
  ["POST", "/tasks/{id}:cancel"],
  ["GET", "/tasks/{id}:subscribe"],
  ["POST", "/tasks/{id}:subscribe"],
  ["GET", "/tasks"],
  ["POST", "/tasks/{id}/pushNotificationConfigs"],
  ["GET", "/tasks/{id}/pushNotificationConfigs"],
  ["GET", "/tasks/{id}/pushNotificationConfigs/{configId}"],
  ["DELETE", "/tasks/{id}/pushNotificationConfigs/{configId}"],
  ["GET", "/extendedAgentCard"],
  ["GET", "/.well-known/agent-card.json"],
];

/** The agent a request goes to: the echo graph mostly, else an assistant by id (either user's), unknown or hostile. */
export function agent(ctx: GenContext): fc.Arbitrary<Labeled<string>> {
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant({ label: "", value: "echo" }) },
    { weight: 2, arbitrary: idValue(ctx, "assistant").map((v) => ({ label: `agent=${v.label}`, value: encodeURIComponent(v.value) })) },
    { weight: 1, arbitrary: hostileSegment.map((s) => ({ label: `agent=${s.label}`, value: s.value })) },
  );
}

/** A message in v1.0 JSON (`ROLE_USER`, parts `{text}`) or v0.3 JSON (`kind`, `role: "user"`), possibly continuing a task. */
function message(ctx: GenContext, legacy: boolean) {
  return fc
    .record({
      messageId: fc.uuid(),
      taskId: fc.option(
        idValue(ctx, "task").map((v) => v.value),
        { nil: undefined },
      ),
      contextId: fc.option(
        idValue(ctx, "thread").map((v) => v.value),
        { nil: undefined },
      ),
      text: fc.string({ maxLength: 20 }),
    })
    .map(({ messageId, taskId, contextId, text }) =>
      jsonObject(
        Object.entries(
          legacy
            ? { kind: "message", messageId, role: "user", parts: [{ kind: "text", text }], taskId, contextId }
            : { messageId, role: "ROLE_USER", parts: [{ text }], taskId, contextId },
        ).filter(([, v]) => v !== undefined),
      ),
    );
}

function configuration(ctx: GenContext) {
  return fc.option(
    fc.record(
      {
        blocking: fc.boolean(),
        historyLength: fc.integer({ min: -1, max: 5 }),
        acceptedOutputModes: fc.constant(["text/plain"]),
        pushNotificationConfig: fc.record({ url: fc.constant(`${ctx.world.sinkUrl}/push`), token: fc.string({ maxLength: 6 }) }),
      },
      { requiredKeys: [] },
    ),
    { nil: undefined },
  );
}

/** The methods that send a message (SendMessage, message/stream, ...), which carry data parts and metadata. */
function isSend(method: string): boolean {
  return /send|stream/i.test(method) && !/subscribe/i.test(method);
}

/** Plausible params for a method (then mutated): the shapes of the request messages, ids from the world. */
export function params(ctx: GenContext, method: string, legacy: boolean): fc.Arbitrary<unknown> {
  const task = idValue(ctx, "task").map((v) => v.value);
  const configId = fc.oneof(fc.constant("default"), fc.uuid(), fc.string({ maxLength: 8 }));
  const push = fc.record({ id: configId, url: fc.constant(`${ctx.world.sinkUrl}/push`), token: fc.string({ maxLength: 6 }) });
  if (isSend(method)) {
    return fc
      .record({ message: message(ctx, legacy), configuration: configuration(ctx) })
      .map((p) => jsonObject(Object.entries(p).filter(([, v]) => v !== undefined)));
  }
  if (method === "ListTasks") {
    return fc.record(
      {
        contextId: idValue(ctx, "thread").map((v) => v.value),
        status: fc.constantFrom("TASK_STATE_COMPLETED", "TASK_STATE_WORKING", "UNRECOGNIZED", 3, "bogus"),
        pageSize: fc.integer({ min: -1, max: 200 }),
        pageToken: fc.string({ maxLength: 10 }),
        historyLength: fc.integer({ min: -1, max: 5 }),
        includeArtifacts: fc.boolean(),
      },
      { requiredKeys: [] },
    );
  }
  if (/set|CreateTaskPush/.test(method)) {
    return legacy
      ? fc.record({ taskId: task, pushNotificationConfig: push })
      : fc.record({ taskId: task, configId, config: push }, { requiredKeys: ["taskId"] });
  }
  if (/pushNotificationConfig\/(get|delete)|(Get|Delete)TaskPush/.test(method)) {
    return legacy ? fc.record({ id: task, pushNotificationConfigId: configId }) : fc.record({ taskId: task, id: configId });
  }
  if (/pushNotificationConfig\/list|ListTaskPush/.test(method)) {
    return legacy
      ? fc.record({ id: task })
      : fc.record(
          { taskId: task, pageSize: fc.integer({ min: -1, max: 5 }), pageToken: fc.string({ maxLength: 6 }) },
          { requiredKeys: ["taskId"] },
        );
  }
  if (/card|Card/.test(method)) return fc.constant(jsonObject());
  return fc.record({ id: task, historyLength: fc.integer({ min: -1, max: 5 }) }, { requiredKeys: ["id"] });
}

/** JSON-RPC at POST /a2a/{assistant_id}, for one protocol version: every method, bogus ones, broken envelopes. */
export function a2aJsonRpcTarget(ctx: GenContext, version: "1.0" | "0.3"): FuzzTarget {
  const legacy = version === "0.3";
  const methods = legacy ? A2A_V03_METHODS : A2A_V1_METHODS;
  const call = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom<string>(...methods) },
    { weight: 1, arbitrary: fc.constantFrom(...BOGUS_METHODS, ...(legacy ? A2A_V1_METHODS : A2A_V03_METHODS)) },
  );
  const request = call.chain((method) =>
    fc.record({
      method: fc.constant(method),
      params: isSend(method)
        ? fc.oneof({ weight: 6, arbitrary: mutatedBody(params(ctx, method, legacy)) }, { weight: 1, arbitrary: bulkSend(legacy) })
        : mutatedBody(params(ctx, method, legacy)),
      id: fc.oneof(fc.integer(), fc.string({ maxLength: 8 }), fc.constant(null), fc.constant(jsonObject([["x", 1]]))),
      envelope: fc.oneof(
        { weight: 8, arbitrary: fc.constant({ label: "", jsonrpc: "2.0" as unknown }) },
        {
          weight: 1,
          arbitrary: fc
            .constantFrom<unknown>("1.0", 2, null, undefined)
            .map((jsonrpc) => ({ label: `jsonrpc=${String(jsonrpc)}`, jsonrpc })),
        },
      ),
      versionHeader: legacy
        ? fc.oneof(
            { weight: 8, arbitrary: fc.constant<string | undefined>(undefined) },
            { weight: 1, arbitrary: fc.constantFrom("0.3", "0.2", "") },
          )
        : fc.oneof(
            { weight: 8, arbitrary: fc.constant<string | undefined>("1.0") },
            { weight: 1, arbitrary: fc.constantFrom("1.1", "2.0", "1", "x") },
          ),
      agent: agent(ctx),
      contentType,
      user: caller(ctx.world),
    }),
  );
  return {
    name: `A2A JSON-RPC v${version}`,
    weight: 6,
    arbitrary: request.map((r) => {
      const body = r.params.isRaw
        ? r.params
        : {
            value: jsonObject(
              Object.entries({ jsonrpc: r.envelope.jsonrpc, id: r.id, method: r.method, params: r.params.value }).filter(
                ([, v]) => v !== undefined,
              ),
            ),
          };
      return buildRequest({
        method: "POST",
        path: `/a2a/${r.agent.value}`,
        route: `POST /a2a/{assistant_id} v${version} [${r.method}]`,
        labels: [
          r.agent.label,
          r.envelope.label,
          r.versionHeader !== (legacy ? undefined : "1.0") ? `A2A-Version=${r.versionHeader ?? "none"}` : "",
          `params ${r.params.label}`,
        ],
        user: r.user,
        contentType: r.contentType,
        body,
        extraHeaders: r.versionHeader === undefined ? {} : { "A2A-Version": r.versionHeader },
        sinkUrl: ctx.world.sinkUrl,
        jsonRpc: true,
      });
    }),
  };
}

/** The HTTP+JSON binding: one target per route, task ids from the world or hostile, bodies mutated. */
export function a2aHttpTargets(ctx: GenContext): FuzzTarget[] {
  return A2A_HTTP_ROUTES.map(([method, subpath]) => {
    const route = `${method} /a2a/{assistant_id}${subpath}`;
    const bodyParams = subpath.startsWith("/message")
      ? params(ctx, "SendMessage", false)
      : subpath.endsWith("Configs")
        ? params(ctx, "CreateTaskPushNotificationConfig", false)
        : undefined;
    const arbitrary = fc
      .record({
        agent: agent(ctx),
        id: fc.oneof({ weight: 4, arbitrary: idValue(ctx, "task") }, { weight: 1, arbitrary: hostileSegment }),
        configId: fc.oneof(
          fc.constant({ label: "", value: "default" }),
          fc.uuid().map((value) => ({ label: "configId=uuid", value })),
          hostileSegment,
        ),
        query: fc.option(
          fc.tuple(
            fc.constantFrom(
              "historyLength",
              "pageSize",
              "status",
              "pageToken",
              "contextId",
              "statusTimestampAfter",
              "includeArtifacts",
              "tenant",
            ),
            hostileQueryValue,
          ),
          { nil: undefined },
        ),
        body:
          method === "POST"
            ? fc.option(
                subpath.startsWith("/message")
                  ? fc.oneof({ weight: 6, arbitrary: mutatedBody(bodyParams!) }, { weight: 1, arbitrary: bulkSend(false) })
                  : mutatedBody(bodyParams ?? fc.constant(jsonObject())),
                { freq: 6, nil: undefined },
              )
            : fc.constant(undefined),
        versionHeader: fc.oneof(
          { weight: 8, arbitrary: fc.constant<string | undefined>("1.0") },
          { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, "0.3", "2.0") },
        ),
        contentType,
        user: caller(ctx.world),
      })
      .map((r) => {
        const path = subpath.replace("{id}", r.id.value).replace("{configId}", r.configId.value);
        const query = r.query ? `?${r.query[0]}=${r.query[1].value}` : "";
        return buildRequest({
          method,
          path: `/a2a/${r.agent.value}${path}${query}`,
          route,
          labels: [
            r.agent.label,
            subpath.includes("{id}") && r.id.label !== "own id" ? `task=${r.id.label}` : "",
            r.query ? `query.${r.query[0]}${r.query[1].label}` : "",
            r.versionHeader !== "1.0" ? `A2A-Version=${r.versionHeader ?? "none"}` : "",
            r.body ? r.body.label : "",
          ],
          user: r.user,
          contentType: r.contentType,
          body: r.body,
          extraHeaders: r.versionHeader === undefined ? {} : { "A2A-Version": r.versionHeader },
          sinkUrl: ctx.world.sinkUrl,
        });
      });
    return { name: route, arbitrary };
  });
}
