// Worker thread entry (plain JavaScript: a worker starts outside tsx, and the package ships it as its own
// file): a second connection to the database that copies the WAL back into it every `intervalMs`, so the
// server's own connection never pays for that copy and its fsyncs inside a commit (wal-checkpointer.ts).
import { clearInterval, setInterval } from "node:timers";
import { parentPort, workerData } from "node:worker_threads";
import Database from "better-sqlite3";

const { path, intervalMs } = workerData;
const db = new Database(path);
// The checkpoint syncs the WAL before copying and the database after, as the server's connection would.
db.pragma("synchronous = NORMAL");

let failing = false;
let reported = "";
const checkpoint = () => {
  try {
    // PASSIVE: copies what no reader still needs and never waits for a lock; a busy or partial checkpoint is
    // simply taken up again at the next tick.
    const [{ log, checkpointed }] = db.pragma("wal_checkpoint(PASSIVE)");
    // Only what changed: an idle database leaves the server's thread alone.
    const report = `${log}/${checkpointed}`;
    if ((checkpointed > 0 && report !== reported) || failing) parentPort.postMessage({ log, checkpointed });
    reported = report;
    failing = false;
  } catch (error) {
    // A full disk or an I/O error: the WAL still holds every commit; say so once and try again next tick.
    if (!failing) parentPort.postMessage({ error: String(error?.message ?? error) });
    failing = true;
  }
};
const timer = setInterval(checkpoint, intervalMs);

parentPort.on("message", (message) => {
  if (message !== "close") return;
  clearInterval(timer);
  db.close();
  parentPort.close();
});
