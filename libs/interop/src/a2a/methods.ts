/** A2A v1.0 JSON-RPC methods (`A2A-Version: 1.0`), as `@a2a-js/sdk` 1.3.0's JsonRpcTransportHandler dispatches them. */
export const A2A_V1_METHODS = [
  "SendMessage",
  "SendStreamingMessage",
  "GetTask",
  "ListTasks",
  "CancelTask",
  "SubscribeToTask",
  "CreateTaskPushNotificationConfig",
  "GetTaskPushNotificationConfig",
  "ListTaskPushNotificationConfigs",
  "DeleteTaskPushNotificationConfig",
  "GetExtendedAgentCard",
] as const;

/** A2A v0.3 JSON-RPC methods (no version header), as the SDK's LegacyJsonRpcTransportHandler dispatches them. */
export const A2A_V03_METHODS = [
  "message/send",
  "message/stream",
  "tasks/get",
  "tasks/cancel",
  "tasks/resubscribe",
  "tasks/pushNotificationConfig/set",
  "tasks/pushNotificationConfig/get",
  "tasks/pushNotificationConfig/list",
  "tasks/pushNotificationConfig/delete",
  "agent/getAuthenticatedExtendedCard",
] as const;
