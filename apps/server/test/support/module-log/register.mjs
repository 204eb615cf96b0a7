// Preloaded with `node --import` (NODE_OPTIONS) by moduleLog(): records every ES module the process loads.
import { register } from "node:module";

register("./hooks.mjs", import.meta.url, { data: { file: process.env.AGENT_SERVER_MODULE_LOG } });
