// Module hooks (they run on Node's loader thread): one line per module loaded, its URL, appended to the
// file moduleLog() named. Synchronous, so the lines are there as soon as the module is.
import { appendFileSync } from "node:fs";

let file;

export function initialize(data) {
  file = data?.file;
}

export async function load(url, context, nextLoad) {
  const result = await nextLoad(url, context);
  if (file) appendFileSync(file, `${url}\n`);
  return result;
}
