/** Test tooling other workspace projects use (tools/package's tarball test); never part of the package. */
export { waitForOutput } from "./cli-process.js";
export { dockerfileStages, imageRuntime, replayBuildStage, type Instruction } from "./dockerfile-replay.js";
export { freePort } from "./ports.js";
