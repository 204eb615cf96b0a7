import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const LOGGER = fileURLToPath(new URL("./logger.ts", import.meta.url));
const APP_DIR = fileURLToPath(new URL("../..", import.meta.url));

/** Runs `body` in a child with `logger` (createLogger(format)) in scope; resolves its stdout when `until` holds or it exits. */
function child(format: "json" | "pretty", body: string, until?: (out: string) => boolean): Promise<{ out: string; exited: boolean }> {
  const code = `import { createLogger } from ${JSON.stringify(LOGGER)};\nconst logger = createLogger(${JSON.stringify(format)});\n${body}`;
  const proc = spawn(process.execPath, ["--import", "tsx", "--input-type=module", "-e", code], {
    cwd: APP_DIR,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  return new Promise((resolve, reject) => {
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (until?.(out)) {
        proc.kill("SIGKILL");
        resolve({ out, exited: false });
      }
    });
    proc.stderr.on("data", (d: Buffer) => (err += d.toString()));
    proc.on("error", reject);
    proc.on("exit", (status, signal) => {
      if (signal === "SIGKILL") return;
      if (status !== 0) reject(new Error(`child exited with ${status}: ${err}`));
      else resolve({ out, exited: true });
    });
  });
}

describe("the server's logger", () => {
  it.each(["json", "pretty"] as const)("%s: lines buffered when made are written when the process exits right after", async (format) => {
    const { out } = await child(format, `for (let i = 0; i < 3; i++) logger.info({ n: i }, "line " + i);\nprocess.exit(0);`);
    expect(out).toContain("line 0");
    expect(out).toContain("line 2");
  });

  it("a line reaches stdout within the flush tick while the process goes on", async () => {
    const started = Date.now();
    const { out, exited } = await child("json", `logger.info("still running");\nsetTimeout(() => {}, 10_000);`, (o) =>
      o.includes("still running"),
    );
    expect(exited).toBe(false);
    expect(JSON.parse(out.trim().split("\n")[0]!)).toMatchObject({ msg: "still running", level: 30 });
    expect(Date.now() - started).toBeLessThan(8_000);
  });
});
