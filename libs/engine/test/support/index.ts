/**
 * Test helpers shared by the engine's tests and the layers above it (HTTP API, A2A, CLI): the test graphs
 * and an engine harness. The storage drivers they run on come from the private `@agent-server/testing`.
 */
export { startEngine, newThread, eventually, collect } from "./harness.js";
export { echoGraph, chatGraph, approvalGraph, slowGraph, failingGraph, parentGraph, whoamiGraph } from "./graphs.js";
