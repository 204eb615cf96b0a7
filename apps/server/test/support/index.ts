import { fileURLToPath } from "node:url";

/**
 * Test tooling other workspace projects use (tools/package's tarball test, tools/fuzz's server under
 * test, tools/bench's servers and investigations); never part of the package.
 */
export { BIN, EXAMPLE_CONFIG, jsonLines, killAll, REPO_ROOT, startCli, waitForOutput, type CliRun } from "./cli-process.js";
export { startServeProcesses, type ServeProcess } from "./serve-processes.js";
export { dockerfileStages, imageRuntime, replayBuildStage, type Instruction } from "./dockerfile-replay.js";
export { freePort } from "./ports.js";
export { moduleLog, type ModuleLog } from "./module-log.js";

/** The project the scale-out tests and investigations serve from several processes. */
export const SCALE_OUT_PROJECT = fileURLToPath(new URL("./fixture-project/langgraph-scale-out.json", import.meta.url));
