/**
 * What deleting an assistant takes with it, the same in every driver:
 * - `versions`: its version history;
 * - `crons`: its schedules (a cron only names the assistant to run; without it every tick would fail).
 *
 * Its runs are not among them, whoever made them. A run belongs to its thread, and so to the thread's
 * owner, not to the assistant's: an assistant's owner must not be able to erase another user's runs, their
 * `RunResult`s (durable A2A task output), events or deliveries by deleting the assistant. The runs stay with
 * a dangling `assistant_id`; reading them still works, and the thread state still projects from the graph
 * they ran (`graph_id` in the run's config and in its checkpoints' metadata). A run still pending when its
 * assistant goes ends as `error` when a worker picks it up (there is no assistant to execute). Runs go only
 * with their thread: `DELETE /assistants/{id}?delete_threads=true` deletes the threads the caller is
 * allowed to delete (`threads:delete`), each with its runs, through the thread delete.
 *
 * A driver keeps one eraser per dependent (`Record<AssistantDependent, ...>`), so a dependent added here
 * does not compile until every driver erases it.
 */
export const ASSISTANT_DEPENDENTS = ["versions", "crons"] as const;
export type AssistantDependent = (typeof ASSISTANT_DEPENDENTS)[number];
