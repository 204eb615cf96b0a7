import { TaskState, type ListTasksRequest } from "@a2a-js/sdk";
import { RequestMalformedError } from "@a2a-js/sdk/errors";

/**
 * ListTasks parameters, validated as A2A v1.0 (a2a.proto `ListTasksRequest`) defines them:
 * - `pageSize`: 1..100; unset means 50. Out of range or not an integer: InvalidParams.
 * - `pageToken`: empty, or a token this server handed out (the offset, as decimal digits).
 * - `historyLength`: unset, or a non-negative integer.
 * - `statusTimestampAfter`: an ISO 8601 / RFC 3339 timestamp; only tasks whose status timestamp is at
 *   or after it are listed.
 * - `status`: a task state to filter on; TASK_STATE_UNSPECIFIED or UNRECOGNIZED (as the @a2a-js/sdk
 *   1.3.0 client sends an unset filter) means every state. Anything else is InvalidParams; the decoders
 *   turn unknown names into UNRECOGNIZED, so the raw value is checked with `taskStateFilter` first.
 */
export interface ListTasksQuery {
  contextId: string | undefined;
  /** undefined: every state. */
  status: TaskState | undefined;
  pageSize: number;
  offset: number;
  historyLength: number | undefined;
  /** Epoch milliseconds; undefined: no lower bound. */
  statusTimestampAfter: number | undefined;
  includeArtifacts: boolean;
}

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;

/** RFC 3339 date-time (ISO 8601 profile): `2023-10-27T10:00:00Z`, fractions and offsets allowed. */
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d{1,9})?([Zz]|[+-]\d{2}:\d{2})$/;

export function listTasksQuery(params: ListTasksRequest): ListTasksQuery {
  const status = params.status === TaskState.TASK_STATE_UNSPECIFIED || params.status === TaskState.UNRECOGNIZED ? undefined : params.status;
  if (status !== undefined && TaskState[status] === undefined)
    throw new RequestMalformedError(`unknown task status "${String(params.status)}"`);
  return {
    contextId: params.contextId || undefined,
    status,
    pageSize: pageSize(params.pageSize),
    offset: pageOffset(params.pageToken),
    historyLength: historyLength(params.historyLength),
    statusTimestampAfter: timestamp(params.statusTimestampAfter),
    includeArtifacts: params.includeArtifacts ?? false,
  };
}

/**
 * The state filter from its wire value (a JSON-RPC param or an HTTP+JSON query string): a state name or
 * number, or UNRECOGNIZED / TASK_STATE_UNSPECIFIED (no filter). Unknown values are refused instead of
 * being read as "no filter".
 */
export function taskStateFilter(raw: unknown): TaskState {
  if (raw === undefined || raw === null || raw === "") return TaskState.TASK_STATE_UNSPECIFIED;
  const numeric = typeof raw === "string" && /^-?\d+$/.test(raw) ? Number(raw) : raw;
  if (typeof numeric === "number" && Number.isInteger(numeric) && TaskState[numeric] !== undefined) return numeric as TaskState;
  if (typeof numeric === "string" && numeric in TaskState && typeof TaskState[numeric as keyof typeof TaskState] === "number") {
    return TaskState[numeric as keyof typeof TaskState];
  }
  throw new RequestMalformedError(`unknown task status ${JSON.stringify(raw)}`);
}

/** `historyLength` as requested: unset (the whole history), or a non-negative count of recent messages. */
export function historyLength(value: unknown): number | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 0) {
    throw new RequestMalformedError("historyLength must be a non-negative integer");
  }
  return value;
}

function pageSize(value: number | undefined): number {
  if (value === undefined || value === null) return DEFAULT_PAGE_SIZE;
  if (typeof value !== "number" || !Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE) {
    throw new RequestMalformedError(`pageSize must be an integer from 1 to ${MAX_PAGE_SIZE} (unset: ${DEFAULT_PAGE_SIZE})`);
  }
  return value;
}

function pageOffset(token: string | undefined): number {
  if (!token) return 0;
  if (typeof token !== "string" || !/^\d{1,9}$/.test(token))
    throw new RequestMalformedError("pageToken is not a token this server handed out");
  return Number(token);
}

function timestamp(value: string | undefined): number | undefined {
  if (value === undefined || value === null || value === "") return undefined;
  const parsed = typeof value === "string" && TIMESTAMP.test(value) ? Date.parse(value) : NaN;
  if (Number.isNaN(parsed))
    throw new RequestMalformedError(`statusTimestampAfter must be an ISO 8601 timestamp such as "2023-10-27T10:00:00Z"`);
  return parsed;
}
