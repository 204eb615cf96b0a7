import { InvalidInputError } from "@agent-server/core";
import { projectDirOf, readProject } from "../serve/index.js";
import { encryptionFromEnvironment, openStorage } from "../storage/index.js";
import type { CliOptions } from "./args.js";

/** Values per batch: one transaction each, short enough to run beside serving processes. */
const BATCH_SIZE = 500;

/**
 * `agent-server keys rotate`: re-seals every stored value that is not sealed with LANGGRAPH_AES_KEY
 * (values sealed with a key in LANGGRAPH_AES_FALLBACK_KEYS, and plaintext written before a key was set),
 * batch by batch, then forgets every other recorded key: the data then reads with LANGGRAPH_AES_KEY
 * alone. Stopped half way, running it again carries on where it was (each batch picks what is left).
 */
export async function rotateKeys(options: CliOptions, out: (line: string) => void): Promise<void> {
  const { cipher } = encryptionFromEnvironment();
  if (!cipher.keyId)
    throw new InvalidInputError("keys rotate needs LANGGRAPH_AES_KEY (the new key) and LANGGRAPH_AES_FALLBACK_KEYS (the old ones)");
  const project = await readProject(options);
  // The AES keys only: a custom encryptor manages its own keys (its decrypt may return what to re-seal later).
  const opened = await openStorage(options, project?.cwd ?? projectDirOf(options.config), { storage: project?.config.storage });
  try {
    const repo = opened.storage.encryption;
    if (!repo) throw new InvalidInputError(`storage driver "${opened.storage.kind}" cannot seal data`);
    out(`Storage: ${opened.description}`);
    out(`Re-sealing with key ${cipher.keyId}`);
    let total = 0;
    for (;;) {
      const count = await repo.resealBatch(BATCH_SIZE);
      if (count === 0) break;
      total += count;
      out(`  ${total} values re-sealed`);
    }
    const others = (await repo.keys()).filter((k) => k.keyId !== cipher.keyId);
    for (const key of others) await repo.forgetKey(key.keyId);
    out(
      `Re-sealed ${total} values; every value is sealed with key ${cipher.keyId}${others.length ? `; forgot key ${others.map((k) => k.keyId).join(", ")}` : ""}`,
    );
  } finally {
    await opened.storage.close();
  }
}
