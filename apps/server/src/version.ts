import { readFileSync } from "node:fs";

/** This package's version: printed by --version, reported by GET /info. */
export const VERSION: string = (JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as { version: string })
  .version;
