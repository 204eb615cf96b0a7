/** Where an A2A push notification for a task goes (A2A `TaskPushNotificationConfig`, stored). */
export interface PushConfig {
  /** The task's first run (the A2A task id). */
  run_id: string;
  /** Unique within the task; A2A's config `id`. */
  config_id: string;
  url: string;
  /** Sent back as `X-A2A-Notification-Token` so the receiver can tell our notifications apart. */
  token: string | null;
  /** Credentials sent as `Authorization: <scheme> <credentials>`. */
  authentication: { scheme: string; credentials: string } | null;
  created_at: string;
}

export type NewPushConfig = Omit<PushConfig, "created_at">;

/**
 * A2A push notification configs, kept beside the runs they belong to: deleting the run (or its thread
 * or assistant) deletes its configs. Optional on `Storage`: without it A2A serves no push notifications.
 */
export interface PushConfigRepo {
  /**
   * Inserts the config, or replaces the one with the same (run_id, config_id) keeping its created_at.
   * Returns null and stores nothing when the run does not exist. With `run` (the task's run the config
   * came with: its first run or a continuation), a `RunRepo.settle` of that run that races this put
   * reports `pushConfigs: true` unless it committed first (and then the caller sees the run ended).
   */
  put(input: NewPushConfig, options?: { run?: string }): Promise<PushConfig | null>;
  get(runId: string, configId: string): Promise<PushConfig | null>;
  /** The run's configs, oldest first (created_at, then config_id). */
  list(runId: string): Promise<PushConfig[]>;
  delete(runId: string, configId: string): Promise<boolean>;
}
