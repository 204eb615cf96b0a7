import type { NewRun, RunClaim } from "../repos/runs.js";

/**
 * The `claim` of `RunRepo.create` that a driver applies (see its contract): only for a run inserted
 * `pending` and due now; otherwise none, and the run is inserted as asked.
 */
export function claimOnCreate(input: NewRun, options: { claim?: RunClaim } | undefined, now: string): RunClaim | undefined {
  if (!options?.claim) return undefined;
  if ((input.status ?? "pending") !== "pending") return undefined;
  if (input.created_at !== undefined && Date.parse(input.created_at) > Date.parse(now)) return undefined;
  return options.claim;
}
