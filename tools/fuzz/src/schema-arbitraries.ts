import fc from "fast-check";
import { hostileSegment, hostileValue, jsonObject, RawJson, rawBody, urlValue, type Labeled } from "./hostile-values.js";
import type { World } from "./world.js";

/** The part of JSON Schema the server's OpenAPI document uses. */
export interface Schema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  anyOf?: Schema[];
  oneOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  additionalProperties?: Schema | boolean;
  items?: Schema;
  prefixItems?: Schema[];
  format?: string;
  minimum?: number;
  maximum?: number;
  minLength?: number;
}

export interface GenContext {
  world: World;
  components: Record<string, Schema>;
}

/** Kinds of ids the world holds, by the field or parameter names that carry them. */
type IdKind = "thread" | "run" | "assistant" | "cron" | "checkpoint" | "task";
const ID_FIELDS: Record<string, IdKind> = {
  thread_id: "thread",
  run_id: "run",
  assistant_id: "assistant",
  cron_id: "cron",
  checkpoint_id: "checkpoint",
  id: "task",
  taskId: "task",
  contextId: "thread",
};

function idOf(world: World, who: "mine" | "other", kind: IdKind): string {
  const w = world[who];
  return { thread: w.threadId, run: w.runId, assistant: w.assistantId, cron: w.cronId, checkpoint: w.checkpointId, task: w.taskId }[kind];
}

/**
 * An id for `kind`: the caller's own (reaches the route's real work), the other user's (the auth oracle),
 * an unknown uuid, or a graph name for assistants. Read from the world when generated: the world is re-seeded
 * when a batch deleted it.
 */
export function idValue(ctx: GenContext, kind: IdKind): fc.Arbitrary<Labeled<string>> {
  const options: fc.WeightedArbitrary<Labeled<string>>[] = [
    { weight: 5, arbitrary: fc.constant(null).map(() => ({ label: "own id", value: idOf(ctx.world, "mine", kind) })) },
    { weight: 2, arbitrary: fc.constant(null).map(() => ({ label: "other user's id", value: idOf(ctx.world, "other", kind) })) },
    { weight: 2, arbitrary: fc.uuid().map((value) => ({ label: "unknown uuid", value })) },
  ];
  if (kind === "assistant")
    options.push({ weight: 4, arbitrary: fc.constantFrom("echo", "approval").map((value) => ({ label: "graph name", value })) });
  if (kind === "run")
    options.push({ weight: 1, arbitrary: fc.constant(null).map(() => ({ label: "own task id", value: ctx.world.mine.taskId })) });
  return fc.oneof(...options);
}

/** A path parameter: a usable id most of the time, else a hostile segment. */
export function pathParam(ctx: GenContext, name: string): fc.Arbitrary<Labeled<string>> {
  const kind = ID_FIELDS[name];
  const usable = kind ? idValue(ctx, kind) : fc.constantFrom("", "child", "parent").map((value) => ({ label: "name", value }));
  return fc.oneof(
    { weight: 3, arbitrary: usable },
    { weight: 1, arbitrary: hostileSegment.map((s) => ({ ...s, label: `hostile ${s.label}` })) },
  );
}

/** Far-future, never-firing and invalid schedules: no cron fires while a campaign's row counts are compared. */
const schedule = fc
  .constantFrom(
    "0 0 1 1 *",
    "59 23 31 12 *",
    "0 0 30 2 *",
    "0 0 31 4 *",
    "* * *",
    "61 * * * *",
    "*/0 * * * *",
    "0 0 1 1 * * *",
    "@yearly",
    "",
  )
  .map((value) => ({ label: `schedule=${JSON.stringify(value)}`, value }));

/** Delays that never come due during a campaign (0, an hour, 9e12) or are invalid: no background run starts mid-check. */
const afterSeconds = fc
  .constantFrom<unknown>(0, null, 3600, 9e12, 1e308, -1, -0.5, "5", Number.MAX_SAFE_INTEGER)
  .map((value) => ({ label: `after_seconds=${JSON.stringify(value)}`, value }));

const namespace = fc
  .oneof(fc.constant(["fuzz"]), fc.array(fc.string({ maxLength: 8 }), { maxLength: 3 }), fc.constant(["a.b", "c"]), fc.constant([""]))
  .map((value) => ({ label: "namespace", value: value as unknown }));

const echoInput = fc.constant({ messages: [{ role: "user", content: "hi" }] });

/** A value for a field by name, where the name says more than its schema. */
function byName(ctx: GenContext, name: string | undefined): fc.Arbitrary<unknown> | undefined {
  if (name === undefined) return undefined;
  if (ID_FIELDS[name] && name !== "id") return idValue(ctx, ID_FIELDS[name]!).map((l) => l.value);
  if (name === "webhook" || name === "url") return urlValue(ctx.world.sinkUrl).map((l) => l.value);
  if (name === "schedule") return schedule.map((l) => l.value);
  if (name === "after_seconds") return afterSeconds.map((l) => l.value);
  if (name === "namespace" || name === "namespace_prefix" || name === "prefix") return namespace.map((l) => l.value);
  if (name === "input") return fc.oneof(echoInput, fc.constant(null), fc.constant({ request: "deploy" }));
  if (name === "key")
    return fc.oneof(
      fc.constant(ctx.world.mine.storeKey),
      fc.constant(ctx.world.other.storeKey),
      fc.string({ minLength: 1, maxLength: 10 }),
    );
  return undefined;
}

function resolve(ctx: GenContext, schema: Schema): Schema {
  let resolved = schema;
  while (resolved.$ref) resolved = ctx.components[resolved.$ref.replace("#/components/schemas/", "")] ?? {};
  return resolved;
}

/** A value the schema allows (mostly): the starting point that mutations then break. */
export function fromSchema(ctx: GenContext, input: Schema, name?: string, depth = 0): fc.Arbitrary<unknown> {
  const named = byName(ctx, name);
  if (named) return named;
  const schema = resolve(ctx, input);
  if (depth > 4) return fc.constant(jsonObject());
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => fromSchema(ctx, s, name, depth + 1)));
  if (Array.isArray(schema.type)) return fc.oneof(...schema.type.map((type) => fromSchema(ctx, { ...schema, type }, name, depth)));
  switch (schema.type) {
    case "string":
      if (schema.format === "uuid") return fc.uuid();
      if (schema.format === "date-time") return fc.date({ noInvalidDate: true }).map((d) => d.toISOString());
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: 12 });
    case "integer":
      return fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 50, 50) });
    case "number":
      return fc.double({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 50, 50), noNaN: true });
    case "boolean":
      return fc.boolean();
    case "null":
      return fc.constant(null);
    case "array":
      if (schema.prefixItems) return fc.tuple(...schema.prefixItems.map((s) => fromSchema(ctx, s, undefined, depth + 1)));
      return fc.array(fromSchema(ctx, schema.items ?? {}, undefined, depth + 1), { maxLength: 3 });
    case "object":
      return objectFromSchema(ctx, schema, depth);
    default:
      return schema.properties ? objectFromSchema(ctx, schema, depth) : anyJson;
  }
}

const anyJson: fc.Arbitrary<unknown> = fc.oneof(
  fc.string({ maxLength: 8 }),
  fc.integer({ min: -5, max: 50 }),
  fc.boolean(),
  fc.constant(null),
  fc.dictionary(fc.string({ maxLength: 6 }), fc.string({ maxLength: 6 }), { maxKeys: 2 }),
);

function objectFromSchema(ctx: GenContext, schema: Schema, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {});
  if (properties.length === 0)
    return fc.dictionary(fc.string({ maxLength: 6 }), anyJson, { maxKeys: 2 }).map((d) => jsonObject(Object.entries(d)));
  const required = new Set(schema.required ?? []);
  const entries = properties.map(([key, s]) =>
    required.has(key)
      ? fromSchema(ctx, s, key, depth + 1).map((value) => [key, value] as [string, unknown])
      : fc.option(fromSchema(ctx, s, key, depth + 1), { freq: 2, nil: undefined }).map((value) => [key, value] as [string, unknown]),
  );
  return fc.tuple(...entries).map((pairs) => jsonObject(pairs.filter(([, value]) => value !== undefined)));
}

/**
 * A body derived from the schema, then (mostly) broken: one field replaced by a hostile value, a required
 * field dropped, an extra or prototype-pollution key added, the whole body replaced, or a raw non-JSON text.
 * `undefined` as the value means "send this text as is" (raw bodies).
 */
export function mutatedBody(valid: fc.Arbitrary<unknown>): fc.Arbitrary<Labeled<unknown> & { raw?: string | undefined; isRaw?: boolean }> {
  const extraKey = fc.constantFrom("__proto__", "constructor", "prototype", "extra", "__defineGetter__", "toString");
  return fc.oneof(
    { weight: 3, arbitrary: valid.map((value) => ({ label: "valid", value })) },
    {
      weight: 6,
      arbitrary: fc.tuple(valid, fc.nat(), hostileValue).map(([value, pick, hostile]) => {
        const keys = isObject(value) ? Object.keys(value) : [];
        if (keys.length === 0) return { label: `body=${hostile.label}`, value: hostile.value };
        const key = keys[pick % keys.length]!;
        return { label: `body.${key}=${hostile.label}`, value: jsonObject([...Object.entries(value as object), [key, hostile.value]]) };
      }),
    },
    {
      weight: 1,
      arbitrary: fc.tuple(valid, fc.nat()).map(([value, pick]) => {
        const keys = isObject(value) ? Object.keys(value) : [];
        if (keys.length === 0) return { label: "valid", value };
        const key = keys[pick % keys.length]!;
        return { label: `body without ${key}`, value: jsonObject(Object.entries(value as object).filter(([k]) => k !== key)) };
      }),
    },
    {
      weight: 2,
      arbitrary: fc.tuple(valid, extraKey, hostileValue).map(([value, key, hostile]) => ({
        label: `body.+${key}=${hostile.label}`,
        value: jsonObject([...(isObject(value) ? Object.entries(value) : []), [key, hostile.value]]),
      })),
    },
    { weight: 2, arbitrary: hostileValue.map((hostile) => ({ label: `body=${hostile.label}`, value: hostile.value })) },
    { weight: 2, arbitrary: rawBody.map((raw) => ({ label: raw.label, value: undefined, raw: raw.value, isRaw: true })) },
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof RawJson);
}
