import { createRouter } from "../http/router.js";

/** /threads routes (not thread runs: see runs/). */
export const threads = createRouter();
