import {
  AgentCard,
  type CancelTaskRequest,
  type DeleteTaskPushNotificationConfigRequest,
  type GetExtendedAgentCardRequest,
  type GetTaskPushNotificationConfigRequest,
  type GetTaskRequest,
  type ListTaskPushNotificationConfigsRequest,
  type ListTaskPushNotificationConfigsResponse,
  type ListTasksRequest,
  type ListTasksResponse,
  type Message,
  type SendMessageRequest,
  type StreamResponse,
  type SubscribeToTaskRequest,
  type Task,
  type TaskPushNotificationConfig,
} from "@a2a-js/sdk";
import { A2AError } from "@a2a-js/sdk/errors";
import { GRPC_STATUS_CODE, type GrpcA2AError } from "@a2a-js/sdk/errors/grpc";
import type { A2ARequestHandler, ServerCallContext } from "@a2a-js/sdk/server";
import type { Assistant } from "@agent-server/core";
import { A2A_PROTOCOL_VERSION } from "../agent-card.js";
import { defaultAssistantOf, findAssistant } from "../assistants.js";
import type { AgentCardOptions } from "../card/options.js";
import { INTERNAL_ERROR_MESSAGE, requestDenial, requestStorageFault, type A2ALogger } from "../request-errors.js";
import type { A2AHandlerDeps } from "../handler-deps.js";
import { TaskRequestHandler } from "../request-handler.js";
import { requestScopeOf } from "../request-scope.js";
import { traceGrpc } from "../../tracing.js";
import { refuseBadRequest } from "./grpc-decoding.js";

/**
 * An error answered with a gRPC status of our choosing (UNAUTHENTICATED, NOT_FOUND for an unknown
 * assistant, INTERNAL "Internal error"). The SDK's `grpcService` answers any other non-A2A error as
 * UNKNOWN with its raw text; an A2A error that carries `transport: "grpc"` and a `status` (the SDK's
 * `GrpcA2AError`) it answers with that status and message (`grpcStatusFor`), and with no A2A ErrorInfo
 * detail (its name is no A2A error's), so clients do not read it as one (e.g. as TaskNotFound).
 */
export class GrpcStatusError extends A2AError implements GrpcA2AError {
  readonly transport = "grpc" as const;

  constructor(
    readonly status: number,
    message: string,
  ) {
    super({ message });
  }
}

/**
 * What the client may see of `error`: A2A errors unchanged (the SDK maps them: TaskNotFound -> NOT_FOUND,
 * ...), an auth handler's denial (`HTTPException` 401/403) as UNAUTHENTICATED / PERMISSION_DENIED with
 * its message, anything else INTERNAL "Internal error" — its text never leaves the server; it is logged.
 */
export function grpcFailure(error: unknown, logger: A2ALogger, fields: Record<string, unknown>): Error {
  if (error instanceof A2AError) return error;
  const denial = requestDenial(error);
  if (denial) {
    return new GrpcStatusError(
      denial.status === 401 ? GRPC_STATUS_CODE.UNAUTHENTICATED : GRPC_STATUS_CODE.PERMISSION_DENIED,
      denial.message,
    );
  }
  const fault = requestStorageFault(error, logger, { binding: "GRPC", ...fields });
  if (fault)
    return new GrpcStatusError(fault.status === 507 ? GRPC_STATUS_CODE.RESOURCE_EXHAUSTED : GRPC_STATUS_CODE.UNAVAILABLE, fault.detail);
  logger.error({ binding: "GRPC", ...fields, err: error }, "A2A request failed with an unexpected error");
  return new GrpcStatusError(GRPC_STATUS_CODE.INTERNAL, INTERNAL_ERROR_MESSAGE);
}

/**
 * The card the SDK validates each call's `A2A-Version` against (`validateVersion(version, card, "GRPC")`).
 * It asks before any request field is read, so it cannot be an assistant's: it is the server's, which
 * speaks v1.0 on gRPC. A call without `A2A-Version` asks for "0.3" (the SDK's reading of a missing
 * header) and is refused with VersionNotSupported (FAILED_PRECONDITION): the v0.3 gRPC service is another
 * proto package, not served here.
 */
const VERSION_CARD = AgentCard.fromJSON({
  supportedInterfaces: [{ url: "", protocolBinding: "GRPC", tenant: "", protocolVersion: A2A_PROTOCOL_VERSION }],
});

export interface GrpcDispatchOptions {
  /** langgraph.json `a2a.default_assistant`: the agent of calls with an empty tenant. */
  defaultAssistant?: string | undefined;
  logger: A2ALogger;
  /** The app's card options: the assistant's handler answers GetExtendedAgentCard with them. */
  cardOptions: AgentCardOptions;
  /** The card the assistant's handler carries (`tenant`: how the call named it). */
  card(assistant: Assistant, tenant: string): AgentCard;
}

/**
 * The one `A2ARequestHandler` the SDK's `grpcService` takes, for a port that serves every assistant: per
 * call it resolves the assistant the request's `tenant` names (assistant id or graph name; empty: the
 * default assistant, as for the domain-root card) and delegates to a `TaskRequestHandler` for it and for
 * the caller's scope (put into the call context by the server's context builder) — the same handler,
 * scoping and durable results as JSON-RPC and HTTP+JSON. An unknown assistant is NOT_FOUND; a request that
 * could not be decoded or nests too deep is INVALID_ARGUMENT (`refuseBadRequest`).
 */
export class GrpcDispatchHandler implements A2ARequestHandler {
  constructor(
    private readonly deps: A2AHandlerDeps,
    private readonly options: GrpcDispatchOptions,
  ) {}

  async getAgentCard(): Promise<AgentCard> {
    return VERSION_CARD;
  }

  sendMessage(params: SendMessageRequest, context: ServerCallContext): Promise<Message | Task> {
    return this.unary("SendMessage", params, context, (handler) => handler.sendMessage(params, context));
  }

  sendMessageStream(params: SendMessageRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return this.stream("SendStreamingMessage", params, context, (handler) => handler.sendMessageStream(params, context));
  }

  getTask(params: GetTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.unary("GetTask", params, context, (handler) => handler.getTask(params, context));
  }

  cancelTask(params: CancelTaskRequest, context: ServerCallContext): Promise<Task> {
    return this.unary("CancelTask", params, context, (handler) => handler.cancelTask(params, context));
  }

  listTasks(params: ListTasksRequest, context: ServerCallContext): Promise<ListTasksResponse> {
    return this.unary("ListTasks", params, context, (handler) => handler.listTasks(params, context));
  }

  resubscribe(params: SubscribeToTaskRequest, context: ServerCallContext): AsyncGenerator<StreamResponse, void, undefined> {
    return this.stream("SubscribeToTask", params, context, (handler) => handler.resubscribe(params, context));
  }

  createTaskPushNotificationConfig(params: TaskPushNotificationConfig, context: ServerCallContext): Promise<TaskPushNotificationConfig> {
    return this.unary("CreateTaskPushNotificationConfig", params, context, (handler) =>
      handler.createTaskPushNotificationConfig(params, context),
    );
  }

  getTaskPushNotificationConfig(
    params: GetTaskPushNotificationConfigRequest,
    context: ServerCallContext,
  ): Promise<TaskPushNotificationConfig> {
    return this.unary("GetTaskPushNotificationConfig", params, context, (handler) =>
      handler.getTaskPushNotificationConfig(params, context),
    );
  }

  listTaskPushNotificationConfigs(
    params: ListTaskPushNotificationConfigsRequest,
    context: ServerCallContext,
  ): Promise<ListTaskPushNotificationConfigsResponse> {
    return this.unary("ListTaskPushNotificationConfigs", params, context, (handler) =>
      handler.listTaskPushNotificationConfigs(params, context),
    );
  }

  deleteTaskPushNotificationConfig(params: DeleteTaskPushNotificationConfigRequest, context: ServerCallContext): Promise<void> {
    return this.unary("DeleteTaskPushNotificationConfig", params, context, (handler) =>
      handler.deleteTaskPushNotificationConfig(params, context),
    );
  }

  getAuthenticatedExtendedAgentCard(params: GetExtendedAgentCardRequest, context: ServerCallContext): Promise<AgentCard> {
    return this.unary("GetExtendedAgentCard", params, context, (handler) => handler.getAuthenticatedExtendedAgentCard(params, context));
  }

  private async unary<T>(
    method: string,
    params: { tenant: string },
    context: ServerCallContext,
    call: (handler: A2ARequestHandler) => Promise<T>,
  ): Promise<T> {
    try {
      refuseBadRequest(params);
      return await traceGrpc(method, context, async () => call(await this.handlerFor(params.tenant, context)));
    } catch (error) {
      throw grpcFailure(error, this.options.logger, { method, tenant: params.tenant });
    }
  }

  private async *stream(
    method: string,
    params: { tenant: string },
    context: ServerCallContext,
    call: (handler: A2ARequestHandler) => AsyncGenerator<StreamResponse, void, undefined>,
  ): AsyncGenerator<StreamResponse, void, undefined> {
    try {
      refuseBadRequest(params);
      yield* call(await this.handlerFor(params.tenant, context));
    } catch (error) {
      throw grpcFailure(error, this.options.logger, { method, tenant: params.tenant });
    }
  }

  private async handlerFor(tenant: string, context: ServerCallContext): Promise<A2ARequestHandler> {
    // Fail closed: without the caller's scope (set for every call by the server) nothing is served.
    const scope = requestScopeOf(context);
    if (!scope) throw new Error("gRPC call context without the caller's request scope");
    const requested = tenant || defaultAssistantOf(this.deps, this.options.defaultAssistant);
    if (!requested) {
      throw new GrpcStatusError(
        GRPC_STATUS_CODE.NOT_FOUND,
        "No default A2A assistant: set the request's tenant to an assistant id or graph name, or set a2a.default_assistant in langgraph.json",
      );
    }
    const assistant = await findAssistant(this.deps, requested);
    if (!assistant) throw new GrpcStatusError(GRPC_STATUS_CODE.NOT_FOUND, `Assistant "${requested}" not found`);
    return new TaskRequestHandler(this.deps, assistant, this.options.card(assistant, requested), scope.auth, this.options.cardOptions);
  }
}
