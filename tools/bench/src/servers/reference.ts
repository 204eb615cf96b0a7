import { copyFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { A2A_REFERENCE, copyPeerApp, peerDir } from "../peers/install.js";
import { startProcess } from "../processes.js";
import type { RunningServer } from "./running-server.js";

const SERVER_SOURCE = fileURLToPath(new URL("../peers/a2a-reference-server.mjs", import.meta.url));

/** The @a2a-js/sdk reference server (peers/a2a-reference-server.mjs), run inside its peer install. */
export async function startReferenceServer(): Promise<RunningServer> {
  const dir = peerDir(A2A_REFERENCE);
  const script = join(dir, "a2a-reference-server.mjs");
  copyFileSync(SERVER_SOURCE, script);
  copyPeerApp(dir);
  const server = startProcess(process.execPath, [script, "0"], { cwd: dir, env: { ...process.env, NODE_ENV: "production" } });
  try {
    const [, url] = await server.waitFor(/listening on (http:\/\/\S+)/);
    return { name: "reference", url: url!, a2aUrl: `${url}/`, pid: server.pid, output: server.output, stop: server.stop };
  } catch (error) {
    await server.stop();
    throw error;
  }
}
