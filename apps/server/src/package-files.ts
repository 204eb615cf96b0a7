import { fileURLToPath } from "node:url";

/**
 * The package's bin, found by URL from this module: it sits one level below the package root both in the
 * sources (src/) and in the published bundle (dist/, whose chunks stay beside the entries), so the modules
 * in src/'s folders reach the bin through here rather than by a `../` of their own depth.
 */
export const BIN = fileURLToPath(new URL("../bin/agent-server.mjs", import.meta.url));
