#!/usr/bin/env node
// Runs the TypeScript sources through tsx, so the CLI needs no build step.
import { register } from "tsx/esm/api";

register();
// Graphs then load with tsx's loader as it is (libs/engine/src/graphs/shared-scope.ts: TYPESCRIPT_LOADER).
globalThis[Symbol.for("agent-server.typescript-loader")] = true;
await import("../src/main.ts");
