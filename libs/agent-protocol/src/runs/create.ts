import type { Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { ConflictError, matchesAuthFilter, readThreadHeader, type Metadata, type Run, type RunnableConfig } from "@agent-server/core";
import {
  configurableFromHeaders,
  createRunAuthValue,
  REJECT_MESSAGE,
  type AdmissionOptions,
  type RunCreateRequest,
} from "@agent-server/engine";
import type { AppEnv } from "../app-env.js";
import { runAuthContext } from "../auth/request-auth.js";
import { threadNotFound } from "./access.js";
import type { RunCreateBody } from "./schemas.js";
import { checkWebhookUrl } from "./webhook-url.js";

export interface PreparedRun {
  request: RunCreateRequest;
  options: AdmissionOptions;
}

/**
 * Turns a validated create-run body into an engine request, after `threads:create_run` authorization.
 *
 * - The auth handler sees the run as the official server hands it over and may change its metadata;
 *   the changed metadata is what the run (and a thread admission creates for it) gets.
 * - An existing thread outside the caller's filter answers 404, like a missing one.
 * - `x-*` request headers (except credentials) and `user-agent` go into `config.configurable`, as the
 *   official server does, so graphs can read them.
 * - The authenticated user goes to admission, which writes `langgraph_auth_user*` into the config over
 *   anything the body said. Server-private run facts (`RunInternal`) are never built here: admission
 *   takes them only from server code, so no body, header or metadata field can set them.
 */
export async function prepareRun(c: Context<AppEnv>, threadId: string | undefined, body: RunCreateBody): Promise<PreparedRun> {
  checkWebhookUrl(c.var.deps.engine, body.webhook);
  const strategy = body.multitask_strategy ?? "reject";
  const config = withHeaders(body.config ?? undefined, c.req.raw.headers);
  const request: RunCreateRequest = {
    assistant_id: body.assistant_id,
    input: body.input,
    command: body.command ?? undefined,
    config,
    context: body.context ?? undefined,
    metadata: { ...(body.metadata ?? {}) },
    stream_mode: body.stream_mode ?? undefined,
    stream_subgraphs: body.stream_subgraphs ?? undefined,
    stream_resumable: body.stream_resumable ?? undefined,
    interrupt_before: body.interrupt_before ?? undefined,
    interrupt_after: body.interrupt_after ?? undefined,
    multitask_strategy: strategy,
    if_not_exists: body.if_not_exists ?? undefined,
    after_seconds: body.after_seconds ?? undefined,
    on_completion: body.on_completion ?? undefined,
    on_disconnect: body.on_disconnect ?? undefined,
    webhook: body.webhook ?? undefined,
    checkpoint_id: body.checkpoint_id ?? undefined,
    checkpoint: body.checkpoint ? (withoutNulls(body.checkpoint) as RunCreateRequest["checkpoint"]) : undefined,
    strict_resume: body.strict_resume ?? undefined,
  };
  const value = createRunAuthValue(threadId ?? null, request);
  const filter = await c.var.auth.authorize("threads", "create_run", value);
  if (threadId !== undefined && filter) {
    const thread = await readThreadHeader(c.var.deps.storage.threads, threadId);
    if (thread && !matchesAuthFilter(thread.metadata, filter)) threadNotFound(threadId);
  }
  request.metadata = (value.metadata as Metadata | undefined) ?? {};
  return { request, options: { threadId, auth: runAuthContext(c.var.auth) } };
}

/**
 * Runs an admission, mapping the multitask `reject` conflict to 422 as the official JS server does
 * (`createValidRun` in langgraph-api api/runs.mts throws HTTPException(422) with this message).
 */
export async function admitting<T>(admit: () => Promise<T>): Promise<T> {
  try {
    return await admit();
  } catch (error) {
    if (error instanceof ConflictError) throw new HTTPException(422, { message: REJECT_MESSAGE });
    throw error;
  }
}

/** `Content-Location` of a created run, which the SDK parses for `onRunCreated` (as the official server sets it). */
export function runLocation(run: Run, stateless: boolean): string {
  return stateless ? `/runs/${run.run_id}` : `/threads/${run.thread_id}/runs/${run.run_id}`;
}

/** `config` with the request's `x-*` headers (and user-agent) in `configurable`, as every run's config gets them. */
export function withHeaders(config: Record<string, unknown> | undefined, headers: Headers): RunnableConfig | undefined {
  const copied = configurableFromHeaders(headers);
  if (!config && Object.keys(copied).length === 0) return undefined;
  const clean = withoutNulls(config ?? {}) as RunnableConfig;
  return { ...clean, configurable: { ...(clean.configurable ?? {}), ...copied } };
}

function withoutNulls<T extends Record<string, unknown>>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== undefined)) as T;
}
