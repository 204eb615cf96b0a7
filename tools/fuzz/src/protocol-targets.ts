import fc from "fast-check";
import { contentType, deepNesting, jsonObject } from "./hostile-values.js";
import { buildRequest, caller, type FuzzTarget } from "./request-parts.js";
import { idValue, mutatedBody, type GenContext } from "./schema-arbitraries.js";

/** The thread streaming protocol's commands (libs/agent-protocol/src/thread-stream/commands.ts). */
const METHODS = [
  "run.start",
  "input.respond",
  "input.inject",
  "state.get",
  "state.listCheckpoints",
  "state.fork",
  "agent.getTree",
  "subscription.subscribe",
  "subscription.unsubscribe",
  "subscription.reconnect",
];
const BOGUS_METHODS = ["", "run", "run.stop", "__proto__", "constructor", "state.get.x", "SUBSCRIPTION.SUBSCRIBE"];

/** A value nested 5,000 levels deep, as an object or an array (what the official server once answered -32603 to). */
const deep = fc.constantFrom(deepNesting(5000, "object"), deepNesting(5000, "array"));

/** Plausible params for a method (then mutated), with deep values where the protocol takes any JSON. */
function params(ctx: GenContext, method: string): fc.Arbitrary<unknown> {
  const assistant = idValue(ctx, "assistant").map((v) => v.value);
  const anyJson = fc.oneof({ weight: 3, arbitrary: fc.jsonValue({ maxDepth: 3 }) }, { weight: 1, arbitrary: deep });
  const namespace = fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 });
  switch (method) {
    case "run.start":
      return fc
        .record({
          assistant_id: assistant,
          input: fc.oneof(fc.constant(jsonObject([["messages", [{ role: "user", content: "hi" }]]])), anyJson),
          metadata: fc.oneof(fc.constant(jsonObject()), deep),
          multitask_strategy: fc.constantFrom("enqueue", "reject", "interrupt", "rollback", "bogus"),
        })
        .map((p) => jsonObject(Object.entries(p)));
    case "input.respond":
      return fc.record({ interrupt_id: fc.string({ maxLength: 12 }), response: anyJson, namespace });
    case "input.inject":
      return fc.record({
        namespace,
        message: fc.record({ role: fc.constantFrom("user", "system", "ai"), content: fc.string({ maxLength: 8 }) }),
      });
    case "state.get":
      return fc.record({ namespace, keys: fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }) }, { requiredKeys: [] });
    case "state.listCheckpoints":
      return fc.record({ limit: fc.integer({ min: -1, max: 2000 }), before: fc.string({ maxLength: 8 }) }, { requiredKeys: [] });
    case "state.fork":
      return fc.record(
        { checkpoint_id: fc.oneof(fc.uuid(), fc.string({ maxLength: 8 })), input: anyJson },
        { requiredKeys: ["checkpoint_id"] },
      );
    case "agent.getTree":
      return fc.record({ run_id: idValue(ctx, "run").map((v) => v.value) }, { requiredKeys: [] });
    case "subscription.subscribe":
      return fc.record({
        channels: fc.array(fc.constantFrom("values", "messages", "custom:x", "bogus", ""), { maxLength: 4 }),
        namespaces: fc.array(namespace, { maxLength: 3 }),
        depth: fc.integer({ min: -1, max: 5 }),
      });
    case "subscription.unsubscribe":
      return fc.record({ subscription_id: fc.oneof(fc.string({ maxLength: 20 }), fc.constant("sub.x.eyJjaGFubmVscyI6WzFdfQ")) });
    default:
      return fc.record(
        {
          run_id: fc.uuid(),
          last_event_id: fc.oneof(fc.string({ maxLength: 6 }), fc.constant("1e300")),
          subscriptions: fc.array(fc.string({ maxLength: 12 }), { maxLength: 3 }),
        },
        { requiredKeys: [] },
      );
  }
}

/**
 * `POST /threads/{thread_id}/commands` with every command the protocol defines (and bogus ones), on the
 * caller's threads, another user's, and unknown ones; params plausible, then mutated, with 5,000-deep
 * values where the protocol takes any JSON. The oracles add `protocol unknown_error` (oracles.ts): an
 * error envelope the server did not choose.
 */
export function threadCommandTarget(ctx: GenContext): FuzzTarget {
  const method = fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...METHODS) },
    { weight: 1, arbitrary: fc.constantFrom(...BOGUS_METHODS) },
  );
  const request = method.chain((name) =>
    fc.record({
      method: fc.constant(name),
      params: mutatedBody(params(ctx, name)),
      id: fc.oneof({ weight: 8, arbitrary: fc.nat() }, { weight: 1, arbitrary: fc.constantFrom<unknown>(-1, 1.5, "1", null, 2 ** 53) }),
      thread: idValue(ctx, "thread"),
      contentType,
      user: caller(ctx.world),
    }),
  );
  return {
    name: "thread streaming commands",
    weight: 4,
    arbitrary: request.map((r) => {
      const body = r.params.isRaw
        ? r.params
        : {
            value: jsonObject([
              ["id", r.id],
              ["method", r.method],
              ["params", r.params.value],
            ]),
          };
      return buildRequest({
        method: "POST",
        path: `/threads/${encodeURIComponent(r.thread.value)}/commands`,
        route: `POST /threads/{thread_id}/commands [${r.method}]`,
        labels: [r.thread.label === "own id" ? "" : `thread=${r.thread.label}`, `params ${r.params.label}`],
        user: r.user,
        contentType: r.contentType,
        body,
        sinkUrl: ctx.world.sinkUrl,
      });
    }),
  };
}
