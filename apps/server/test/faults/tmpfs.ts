import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

/**
 * A small tmpfs a test gives a server as its data dir: a disk that fills up in seconds, gets room back
 * (`resize`) and turns read-only (`readOnly`) while the server runs. Mounting needs root, as CI has: a
 * test that cannot mount fails and says so rather than passing without having run.
 */
export class Tmpfs {
  private mounted = false;

  private constructor(readonly dir: string) {}

  static mount(prefix: string, sizeMb: number): Tmpfs {
    if (process.getuid?.() !== 0) {
      throw new Error(`this fault test mounts a tmpfs and must run as root (CI does); uid is ${process.getuid?.()}`);
    }
    const disk = new Tmpfs(mkdtempSync(join(tmpdir(), prefix)));
    execFileSync("mount", ["-t", "tmpfs", "-o", `size=${sizeMb}m`, "tmpfs", disk.dir]);
    disk.mounted = true;
    return disk;
  }

  resize(sizeMb: number): void {
    execFileSync("mount", ["-o", `remount,size=${sizeMb}m`, this.dir]);
  }

  readOnly(readOnly: boolean): void {
    execFileSync("mount", ["-o", `remount,${readOnly ? "ro" : "rw"}`, this.dir]);
  }

  /** Bytes in use, as `df` counts them. */
  usedBytes(): number {
    const out = execFileSync("df", ["-B1", "--output=used", this.dir], { encoding: "utf8" });
    return Number(out.trim().split("\n").at(-1));
  }

  /** Lazily (`-l`): a server that is still being killed may hold a file open. */
  unmount(): void {
    if (this.mounted) execFileSync("umount", ["-l", this.dir]);
    this.mounted = false;
    rmSync(this.dir, { recursive: true, force: true });
  }
}
