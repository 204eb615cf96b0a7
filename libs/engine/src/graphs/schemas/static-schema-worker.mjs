// Worker thread entry (plain JavaScript: a worker starts outside tsx): registers tsx, then runs the
// TypeScript extraction and posts back its result and the hash of every file it read (null: looked for,
// not there), which the on-disk cache keeps to tell when the result is stale.
import { constants, setPriority } from "node:os";
import { parentPort, workerData } from "node:worker_threads";
import { register } from "tsx/esm/api";

// Seconds of compiler work must not slow the requests of a server that has just started: on Linux a
// thread's nice value is its own (setpriority on id 0 is the calling thread), so this thread yields its
// core to the server's main thread and takes what is idle. Elsewhere the call would renice the whole
// process: it is left alone there.
if (process.platform === "linux") {
  try {
    setPriority(constants.priority.PRIORITY_LOW);
  } catch {
    // Not permitted here: the extraction runs at the server's priority.
  }
}
register();
const { extractStaticSchemas } = await import("./static-schemas.ts");
const { contentHash } = await import("./content-hash.ts");
const files = {};
const results = extractStaticSchemas(workerData.targets, (fileName, text) => {
  files[fileName] = text === undefined ? null : contentHash(text);
});
parentPort.postMessage({ results, files });
