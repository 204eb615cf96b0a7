import { KeyedMutex } from "@agent-server/core";

/**
 * `withThreadExecution`: runs of one thread execute one at a time in this process (a `KeyedMutex` keyed
 * by thread id). Across processes the storage's `claimNext` never hands out a run while another run of
 * its thread is running or still holds its lease.
 */
export class ThreadExecution extends KeyedMutex {}
