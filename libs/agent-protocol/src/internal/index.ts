import { createRouter } from "../http/router.js";

/** Dev-mode only routes (/internal/truncate); mounted by createApp when deps.dev is set. */
export const internal = createRouter();
