import { createRouter } from "../http/router.js";
import { crudRoutes } from "./crud-routes.js";
import { maintenanceRoutes } from "./maintenance-routes.js";
import { stateRoutes } from "./state-routes.js";

/**
 * /threads routes (not thread runs: see runs/). The fixed paths (/threads/search, /count, /prune) are
 * POST-only and no POST route takes a bare /threads/{thread_id}, so registration order cannot shadow them.
 */
export const threads = createRouter().route("/", crudRoutes).route("/", maintenanceRoutes).route("/", stateRoutes);
