/**
 * nccl.group() and the state of this thread's NCCL group that communicator.ts reads and writes:
 * how deep the groups are nested, the calls the current group holds (each waited for, or failed,
 * at the outermost ncclGroupEnd) and whether they went to blocking communicators.
 */
import { NcclError, describe, typeError } from '../base/errors';
import { native } from '../cuda/native';
import { requireNccl } from './library';

/** @internal A call made inside a group: its communicator and the wait for NCCL's launch of it. */
export interface GroupCall {
  /** The communicator; a failed group end fails it with that error. */
  comm: { failedGroup(e: NcclError): void };
  /** Waits until NCCL has launched the call (throws its failure or NCCL_TIMEOUT). */
  launched: () => void;
}

/** @internal This thread's NCCL group. */
export const groupState = {
  /** Nesting depth of nccl.group() (0: outside every group). */
  depth: 0,
  /**
   * The calls of the current group: at the outermost groupEnd each one's launch is waited for, or,
   * when the group end fails, its communicator fails with that error.
   */
  calls: [] as GroupCall[],
  /** Whether the calls of the current group went to blocking communicators (null: none yet). */
  blocking: null as boolean | null,
};

/**
 * Runs `fn` between ncclGroupStart and ncclGroupEnd: the calls it makes are launched together
 * (needed for send/recv pairs on one rank, and for one thread driving several GPUs). `fn` must be
 * synchronous; use the synchronous collectives inside, then `comm.synchronizeAsync()`.
 * @example
 * nccl.group(() => { comm.send(a, peer); comm.recv(b, peer); });
 */
export function group<T>(fn: () => T): T {
  if (typeof fn !== 'function') throw typeError('ERR_INVALID_ARG_TYPE', `The "fn" argument must be a function. Received ${describe(fn)}`);
  requireNccl();
  native.ncclGroup(true);
  groupState.depth++;
  let result: T;
  let calls: GroupCall[] = [];
  let endError: unknown;
  try {
    result = fn();
  } finally {
    groupState.depth--;
    if (groupState.depth === 0) {
      [calls, groupState.calls] = [groupState.calls, []];
      groupState.blocking = null;
    }
    try {
      native.ncclGroup(false);
    } catch (e) {
      // A failed group end fails the communicators whose calls it held (a blocking communicator
      // does not record the failure itself); thrown below unless fn's own error is on its way.
      if (e instanceof NcclError) for (const c of new Set(calls.map((x) => x.comm))) c.failedGroup(e);
      endError = e;
    }
  }
  if (endError !== undefined) throw endError;
  // The group is launched by NCCL's thread when groupEnd answers ncclInProgress: wait for every
  // communicator it used (a failure or timeout is thrown after all were waited for).
  let first: unknown;
  for (const c of calls) {
    try { c.launched(); } catch (e) { first ??= e; }
  }
  if (first !== undefined) throw first;
  if (result instanceof Promise) {
    throw typeError('ERR_INVALID_RETURN_VALUE',
      'nccl.group(fn): fn must be synchronous (NCCL groups are per thread and per call sequence)');
  }
  return result;
}
