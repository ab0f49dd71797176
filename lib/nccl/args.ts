/**
 * The argument side of the NCCL collectives: the option types, the operator and dtype maps, and the
 * free helpers communicator.ts uses to check arguments, build errors and poll NCCL with timers.
 */
import { GPUArray } from '../array/gpuarray';
import { NcclError, checkedOptions, describe, knownOptions, rangeError, typeError } from '../base/errors';
import type { DTypeName } from '../base/dtype';
import type { Stream } from '../cuda/driver';
import { version } from './library';

/** Reduction operators (ncclRedOp_t). `avg` needs NCCL 2.10 and a floating dtype or an integer one (truncated). */
export type ReduceOp = 'sum' | 'prod' | 'max' | 'min' | 'avg';
/** @internal ncclRedOp_t of each operator. */
export const OPS: Record<ReduceOp, number> = { sum: 0, prod: 1, max: 2, min: 3, avg: 4 };

/**
 * ncclDataType_t by dtype. complex64/complex128 travel as pairs of float32/float64, which is exact
 * for `sum` and `avg` (they act on real and imaginary parts independently) and for data movement
 * (broadcast, allGather, send/recv); other ops on complex are refused. bool and (u)int16 have no
 * NCCL type: refused (NCCL_UNSUPPORTED_DTYPE). bfloat16 is ncclBfloat16 (9; NCCL ≥ 2.10).
 */
const NCCL_TYPES: Partial<Record<DTypeName, [type: number, perElement: number]>> = {
  int8: [0, 1], uint8: [1, 1], int32: [2, 1], uint32: [3, 1], int64: [4, 1], uint64: [5, 1],
  float16: [6, 1], float32: [7, 1], float64: [8, 1], bfloat16: [9, 1], complex64: [7, 2], complex128: [8, 2],
};

/** Options of every collective. */
export interface CollectiveOptions {
  /** The CUDA stream (default: the legacy default stream). Work queued by nodecuda before the call runs first. */
  stream?: Stream | null;
  /**
   * A positive number of milliseconds (anything else: RangeError ERR_OUT_OF_RANGE). Async forms
   * (and synchronizeAsync, disposeAsync): abort the communicator and reject with NCCL_TIMEOUT when
   * the communicator stays busy, or the work is not done, for this long (default: no limit).
   * Synchronous forms on a non-blocking communicator (`blocking: false`, initAll's default): the
   * longest the call (or, inside nccl.group(), the group's end) waits on the calling thread for
   * NCCL to launch it when NCCL answers ncclInProgress, then aborts with NCCL_TIMEOUT (default:
   * the communicator's timeoutMs). A synchronous call on a blocking communicator only checks the
   * value: NCCL blocks in the call itself, without a time limit. A synchronous call never waits
   * for a busy communicator: it throws NCCL_IN_PROGRESS.
   */
  timeoutMs?: number;
}
/** Options of allReduce and reduceScatter (allGather's without `op`): the operator and an out-of-place result. */
export interface ReduceOptions extends CollectiveOptions {
  /** Default 'sum'. */
  op?: ReduceOp;
  /** Out of place: the result goes here (default: in place, into the input). */
  out?: GPUArray;
}
/** Options of reduce (broadcast's without `op`): ReduceOptions and the root rank. */
export interface RootOptions extends ReduceOptions {
  /** The rank that receives (reduce) or sends (broadcast); default 0. */
  root?: number;
}

/** Options of `new Communicator`. */
export interface CommunicatorOptions {
  /** CUDA device of this rank (default: the calling thread's current device). */
  device?: number;
  /**
   * Initialisation must finish within this time, or the communicator is aborted and `ready`
   * rejects (NCCL_TIMEOUT). Default 60000. Also the default of a synchronous call's wait for
   * NCCL's launch on a non-blocking communicator (CollectiveOptions.timeoutMs).
   */
  timeoutMs?: number;
  /**
   * true (the default for one rank per thread): collectives run on a blocking NCCL communicator
   * (split from the one initialised), launched on the calling thread in ~15 µs. A call that needs
   * a connection not made yet (the first call of a kind, the first send to a peer) waits on the
   * thread until the peers make the same call, without a time limit, as with torch.distributed.
   * false (the default when this thread holds several ranks of the communicator, as initAll makes):
   * every call is non-blocking; NCCL launches each from a thread of its own (50-250 µs more per
   * call), and a synchronous call waits on the thread for that launch at most its own `timeoutMs`
   * option, else the communicator's (then NCCL_TIMEOUT, the communicator aborted).
   * Every rank must pass the same value. Communicators of both kinds cannot be mixed in one
   * nccl.group() (ERR_NCCL_GROUP_MIXED).
   */
  blocking?: boolean;
  /** @internal */
  cgaClusterSize?: number;
}

const ROOTED = ['root', 'out', 'stream', 'timeoutMs'];
/**
 * The option names each Communicator method reads (its Async form takes the same): any other
 * (torch.distributed's async_op or group, a misspelt timeout) is a TypeError, not ignored.
 */
const OPTION_KEYS: Readonly<Record<string, readonly string[]>> = {
  allReduce: ['op', 'out', 'stream', 'timeoutMs'], reduce: ['op', ...ROOTED], broadcast: ROOTED,
  allGather: ['out', 'stream', 'timeoutMs'], reduceScatter: ['op', 'out', 'stream', 'timeoutMs'],
  send: ['stream', 'timeoutMs'], recv: ['stream', 'timeoutMs'], synchronizeAsync: ['stream', 'timeoutMs'],
  disposeAsync: ['timeoutMs'],
};

/**
 * @internal `opts` of Communicator.`method` (or its Async form): null is {}, an unknown key a
 * TypeError ERR_INVALID_ARG_VALUE, a `timeoutMs` that is not a positive number a RangeError
 * ERR_OUT_OF_RANGE (synchronous forms included, before anything reaches NCCL).
 */
export function collectiveOptions<T extends { timeoutMs?: number }>(opts: T | null | undefined, method: string): T {
  const o = checkedOptions(opts, `Communicator.${method}()`, OPTION_KEYS[method] ?? OPTION_KEYS[method.replace(/Async$/, '')]);
  checkTimeout(o.timeoutMs, 'timeoutMs', 0);
  return o;
}

/** @internal The fields of an NcclError raised here (no NCCL status: -1). */
export const NCCL_ERROR_INFO = (code: string, call: string) => ({ code, status: -1, call });

/**
 * Calls `tick` until it answers true, with growing timer gaps (never blocks the event loop). The
 * first call is on a timer too: a communicator made inside nccl.group() reports idle until
 * ncclGroupEnd has launched its init.
 */
export function pollUntil(tick: () => boolean, timeoutMs: number, onTimeout: () => Error): Promise<void> {
  const start = Date.now();
  return new Promise<void>((resolve, reject) => {
    let gap = 0;
    const step = (): void => {
      try {
        if (tick()) return resolve();
        if (Date.now() - start > timeoutMs) return reject(onTimeout());
      } catch (e) {
        return reject(e);
      }
      gap = Math.min(gap ? gap * 2 : 1, 20);
      setTimeout(step, gap);
    };
    setImmediate(step);
  });
}

/**
 * Several ranks of one communicator on one thread can use blocking communicators only with NCCL
 * 2.27 or newer: older ones keep one group job per thread, which the ranks' splits would share
 * (and wait on each other). The error to throw where it is older, else null.
 */
export function sharedBlockingUnsupported(): NcclError | null {
  const v = version();
  if (v.code >= 22700) return null;
  return new NcclError(`blocking: true for several ranks on one thread needs NCCL 2.27 or newer (this is NCCL ` +
    `${v.major}.${v.minor}.${v.patch}): older ones keep one group job per thread, which the ranks' splits would share; ` +
    'pass blocking: false', NCCL_ERROR_INFO('NCCL_UNSUPPORTED', 'ncclCommSplit'));
}

/** @internal A timeout in ms (`dflt` when undefined): RangeError unless a positive number. */
export function checkTimeout(v: unknown, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number' || !(v > 0)) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" option must be a positive number of milliseconds. Received ${describe(v)}`);
  }
  return v;
}

/**
 * @internal The arguments of `new Communicator`, checked before NCCL is opened: the rank in
 * [0, nranks), the 128-byte unique id, the option names and values; the timeout (default 60 s)
 * and the `blocking` option.
 */
export function communicatorArgs(nranks: unknown, uniqueId: unknown, rank: unknown, options: CommunicatorOptions):
  { timeoutMs: number; blocking: boolean | undefined } {
  if (typeof nranks !== 'number' || !Number.isInteger(nranks) || nranks < 1) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "nranks" argument must be a positive integer. Received ${describe(nranks)}`);
  }
  checkRank(rank, 'rank', nranks);
  if (!(uniqueId instanceof Uint8Array) || uniqueId.byteLength !== 128) {
    throw typeError('ERR_INVALID_ARG_TYPE',
      `The "uniqueId" argument must be the 128-byte Uint8Array from nccl.getUniqueId(). Received ${describe(uniqueId)}`);
  }
  if (typeof options !== 'object' || options === null) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "options" argument must be an object. Received ${describe(options)}`);
  }
  knownOptions(options, 'nccl.Communicator', ['device', 'timeoutMs', 'blocking'], ['cgaClusterSize']);
  const timeoutMs = checkTimeout(options.timeoutMs, 'timeoutMs', 60_000);
  const blocking = options.blocking;
  if (blocking !== undefined && typeof blocking !== 'boolean') {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "blocking" option must be a boolean. Received ${describe(blocking)}`);
  }
  return { timeoutMs, blocking };
}

/** @internal A rank in [0, nranks): RangeError otherwise. */
export function checkRank(v: unknown, name: string, nranks: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < 0 || v >= nranks) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" argument must be an integer in [0, ${nranks - 1}]. Received ${describe(v)}`);
  }
  return v;
}

/** [ncclDataType_t, NCCL element count] for an array; typed errors for what NCCL cannot take. */
export function ncclBuffer(a: unknown, name: string, op?: ReduceOp): [number, number] {
  if (!(a instanceof GPUArray)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a GPUArray. Received ${describe(a)}`);
  }
  a.check();
  const t = NCCL_TYPES[a.dtype.name];
  if (!t) {
    const e = typeError('NCCL_UNSUPPORTED_DTYPE', `NCCL has no type for ${a.dtype.name} ("${name}"): use int8, uint8, int32, ` +
      'uint32, int64, uint64, float16, bfloat16, float32 or float64 (or convert with astype())');
    throw e;
  }
  if (t[1] === 2 && op !== undefined && op !== 'sum' && op !== 'avg') {
    throw typeError('NCCL_UNSUPPORTED_DTYPE', `'${op}' is not defined on ${a.dtype.name} ("${name}"): complex supports 'sum' and 'avg'`);
  }
  if (!a.flags.cContiguous) {
    throw typeError('ERR_NCCL_NONCONTIGUOUS', `The "${name}" array must be C-contiguous for NCCL: pass a.copy()`);
  }
  return [t[0], a.size * t[1]];
}

/** @internal RangeError ERR_NCCL_DEVICE_MISMATCH unless array `a` is on `device` (the rank's). */
export function checkDevice(a: GPUArray, name: string, device: number): void {
  const dev = (a as unknown as { device?: unknown }).device;
  if (typeof dev === 'number' && dev !== device) {
    throw rangeError('ERR_NCCL_DEVICE_MISMATCH', `The "${name}" array is on device ${dev}; this rank's communicator is on device ${device}`);
  }
}

/**
 * @internal The array an allReduce, reduce or broadcast writes: `x` (in place) when `out` is
 * undefined, else `out`, checked: as many NCCL elements of NCCL type `type` as `x`, on `device`,
 * and not overlapping `x` other than at its address.
 */
export function sameOut(out: GPUArray | undefined, x: GPUArray, count: number, type: number, call: string, device: number): GPUArray {
  if (out === undefined) return x;
  const [t, n] = ncclBuffer(out, 'out');
  if (t !== type || n !== count) {
    throw rangeError('ERR_NCCL_SIZE_MISMATCH', `"out" (${out.size} × ${out.dtype.name}) must match "x" (${x.size} × ${x.dtype.name})`);
  }
  checkDevice(out, 'out', device);
  checkPlacement(x, out, out.ptr === x.ptr, call);
  return out;
}

/**
 * @internal Refuses an `out` that shares bytes with `x` other than as NCCL's in-place form
 * (`inPlace`: the two addresses are where that form puts them): NCCL reads and writes such
 * buffers in an unspecified order, so a partial overlap gives wrong results without an error.
 */
export function checkPlacement(x: GPUArray, out: GPUArray, inPlace: boolean, call: string): void {
  if (out.alloc !== x.alloc || inPlace) return;
  const xs = x.ptr, os = out.ptr;
  if (xs < os + BigInt(out.nbytes) && os < xs + BigInt(x.nbytes)) {
    throw rangeError('ERR_NCCL_OVERLAP', `Communicator.${call}(): "out" shares memory with "x" other than in place (the same address for ` +
      'allReduce/reduce/broadcast; x at out\'s block of this rank for allGather, out at x\'s block for reduceScatter): ' +
      'pass x alone to run in place, or an out that does not overlap it');
  }
}

/** @internal A reduction operator name (null or undefined: sum): TypeError otherwise. */
export function opOf(v: unknown): ReduceOp {
  const op = v ?? 'sum';
  if (typeof op !== 'string' || !(op in OPS)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `The "op" option must be 'sum', 'prod', 'max', 'min' or 'avg'. Received ${describe(v)}`);
  }
  return op as ReduceOp;
}
