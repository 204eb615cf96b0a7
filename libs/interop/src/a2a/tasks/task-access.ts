import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { readThreadHeader, type Run, type Storage } from "@agent-server/core";
import { openScope, type A2ARequestScope, type A2AThreadAction } from "../request-scope.js";
import { findTask, type FoundTask } from "./task-lineage.js";

/**
 * Which tasks of one agent a caller may act on. A task is scoped like every other run operation,
 * through its thread: the caller's auth handlers decide on `threads:<action>` for the task's thread.
 */
export class TaskAccess {
  constructor(
    private readonly storage: Storage,
    private readonly assistantId: string,
  ) {}

  /**
   * The task (its first run) if it is a task of this agent and the caller may `action` its thread;
   * TaskNotFoundError otherwise — a foreign task is indistinguishable from a missing one. Handler
   * denials (403) propagate.
   */
  async requireTask(taskId: string, scope: A2ARequestScope, action: A2AThreadAction): Promise<Run> {
    return (await this.requireTaskRuns(taskId, scope, action)).first;
  }

  /** `requireTask`, with the first run's marker and the task's current run read along (`findTask`). */
  async requireTaskRuns(taskId: string, scope: A2ARequestScope, action: A2AThreadAction): Promise<FoundTask> {
    const task = await findTask(this.storage, taskId, this.assistantId);
    if (!task || !(await this.visible(task.first, scope, action))) throw new TaskNotFoundError(`task "${taskId}" not found`);
    return task;
  }

  async visible(first: Run, scope: A2ARequestScope, action: A2AThreadAction): Promise<boolean> {
    // No auth handlers: nothing to check, and a run's thread exists while the run does (cascade).
    if (scope === openScope) return true;
    const thread = await readThreadHeader(this.storage.threads, first.thread_id);
    return thread ? this.visibleThread(thread, scope, action) : false;
  }

  async visibleThread(
    thread: { thread_id: string; metadata?: Record<string, unknown> | null },
    scope: A2ARequestScope,
    action: A2AThreadAction,
  ): Promise<boolean> {
    try {
      await scope.authorize(action, { thread_id: thread.thread_id, metadata: thread.metadata ?? {} });
      return true;
    } catch (error) {
      if (error instanceof TaskNotFoundError) return false;
      throw error;
    }
  }
}
