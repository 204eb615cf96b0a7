import { nowIso, toWireObject, type NewPushConfig, type PushConfig, type PushConfigRepo } from "@agent-server/core";
import { compareValues, wireOut, type MemoryState } from "./state.js";

/**
 * A2A push notification configs, kept in `MemoryState.pushConfigs` (run_id -> config_id -> config).
 * `MemoryState.removeRun` drops a run's configs, so run/thread deletes and truncate take them along.
 * Thread copy does not copy them: they were registered for the original task's notifications.
 * Every operation is O(configs of the run).
 */
export class MemoryPushConfigRepo implements PushConfigRepo {
  constructor(private readonly state: MemoryState) {}

  /** `options.run` needs nothing here: a settle and a put never interleave (no await inside either). */
  async put(input: NewPushConfig): Promise<PushConfig | null> {
    // Normalize first (a bad value throws without side effects), then check-and-set with no await.
    const authentication = input.authentication == null ? null : (toWireObject(input.authentication) as PushConfig["authentication"]);
    if (!this.state.runs.has(input.run_id)) return null;
    let configs = this.state.pushConfigs.get(input.run_id);
    if (!configs) this.state.pushConfigs.set(input.run_id, (configs = new Map()));
    const config: PushConfig = {
      run_id: input.run_id,
      config_id: input.config_id,
      url: input.url,
      token: input.token ?? null,
      authentication,
      created_at: configs.get(input.config_id)?.created_at ?? nowIso(),
    };
    configs.set(input.config_id, config);
    return wireOut(config);
  }

  async get(runId: string, configId: string): Promise<PushConfig | null> {
    const config = this.state.pushConfigs.get(runId)?.get(configId);
    return config ? wireOut(config) : null;
  }

  async list(runId: string): Promise<PushConfig[]> {
    return [...(this.state.pushConfigs.get(runId)?.values() ?? [])]
      .sort((a, b) => compareValues(a.created_at, b.created_at) || compareValues(a.config_id, b.config_id))
      .map((c) => wireOut(c));
  }

  async delete(runId: string, configId: string): Promise<boolean> {
    const configs = this.state.pushConfigs.get(runId);
    if (!configs?.delete(configId)) return false;
    if (configs.size === 0) this.state.pushConfigs.delete(runId);
    return true;
  }
}
