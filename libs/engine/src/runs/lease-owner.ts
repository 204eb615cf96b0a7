import { hostname } from "node:os";
import { v4 as uuidv4 } from "uuid";

/**
 * Lease owners: what a worker pool writes as `owner` when it claims a run. `host:pid:uuid` says which
 * process holds the claim, so a process starting on the same host can tell that an earlier one is gone
 * (its pid no longer exists, or is its own pid: a restarted container's pid 1) and take its runs back
 * at once instead of waiting for their leases to lapse. The uuid tells two lives of one pid apart.
 */
export function newLeaseOwner(options: { announced?: boolean } = {}): string {
  return `${hostname()}:${process.pid}:${options.announced ? ANNOUNCED : ""}${uuidv4()}`;
}

/**
 * Owners that announce themselves to the storage's `OwnerPresence` say so in their name (`p.` before the
 * uuid), so a reaper asks presence only about them: an owner that never announced (a process of an older
 * version, or over a driver without presence) holds no presence lock and would read as gone.
 */
export function isAnnouncedOwner(owner: string): boolean {
  return (owner.split(":").pop() ?? "").startsWith(ANNOUNCED);
}

const ANNOUNCED = "p.";

/**
 * True only when `owner` is known to be a process of this host that no longer runs. Anything else (another
 * host, an owner not written by `newLeaseOwner`, a pid that answers) might still be executing: its runs
 * are left to lease expiry. A pid reused by an unrelated process reads as alive: the safe direction.
 */
export function leaseOwnerIsGone(owner: string, self: string): boolean {
  if (owner === self) return false;
  const parts = owner.split(":");
  if (parts.length < 3) return false;
  const pid = Number(parts[parts.length - 2]);
  const host = parts.slice(0, -2).join(":");
  if (host !== hostname() || !Number.isInteger(pid) || pid <= 0) return false;
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return false;
  } catch (error) {
    // EPERM: the pid exists (another user's process).
    return (error as NodeJS.ErrnoException).code === "ESRCH";
  }
}
