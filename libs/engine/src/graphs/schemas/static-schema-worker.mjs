// Worker thread entry (plain JavaScript: a worker starts outside tsx): registers tsx, then runs the
// TypeScript extraction and posts back its result and the hash of every file it read (null: looked for,
// not there), which the on-disk cache keeps to tell when the result is stale.
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

register();
const { extractStaticSchemas } = await import("./static-schemas.ts");
const { contentHash } = await import("./content-hash.ts");
const files = {};
const results = extractStaticSchemas(workerData.targets, (fileName, text) => {
  files[fileName] = text === undefined ? null : contentHash(text);
});
parentPort.postMessage({ results, files });
