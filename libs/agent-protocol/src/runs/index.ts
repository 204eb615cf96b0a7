import { createRouter } from "../http/router.js";
import { runControl } from "./run-control.js";
import { statelessRuns } from "./stateless-runs.js";
import { threadRuns } from "./thread-runs.js";

/**
 * Thread runs (/threads/{id}/runs...), stateless runs (/runs...), joins and cancellation. Mounted after
 * the crons router, so "/runs/crons" is never read as a run id.
 */
export const runs = createRouter().route("/", threadRuns).route("/", runControl).route("/", statelessRuns);
