// Worker thread entry (plain JavaScript: a worker starts outside tsx): registers tsx, then runs the
// TypeScript extraction and posts its result back.
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { extractStaticSchemas } = await import("./static-schemas.ts");
parentPort.postMessage(extractStaticSchemas(workerData.targets));
