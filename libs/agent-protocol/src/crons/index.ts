import { createRouter } from "../http/router.js";
import { cronCreate } from "./create.js";
import { cronManage } from "./manage.js";

/**
 * /runs/crons and /threads/{id}/runs/crons routes. Crons fire through the engine's CronScheduler, which
 * submits each cron's stored payload as a run request on its schedule.
 */
export const crons = createRouter().route("/", cronManage).route("/", cronCreate);
