/** Test helpers shared by the engine's tests and the layers above it (HTTP API, A2A, CLI). */
export { drivers, type TestDriver } from "./drivers.js";
export { startEngine, newThread, eventually, collect } from "./harness.js";
export { echoGraph, approvalGraph, slowGraph, failingGraph, parentGraph, whoamiGraph } from "./graphs.js";
