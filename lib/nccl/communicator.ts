/**
 * NCCL communicators and collectives on GPUArrays: the Communicator class and initAll (the option
 * types, argument checks and timer polling are in args.ts; nccl.group() and its state in group.ts).
 * Initialisation is non-blocking (ncclConfig.blocking = 0, polled with timers, aborted after
 * timeoutMs); once initialised, the communicator is split (non-blocking too) into a blocking one of
 * the same ranks that runs the collectives on the calling thread: a non-blocking communicator
 * starts a thread for every call, which cost 1.5-5x torch's latency for small messages (65-250 us a
 * call on 2 and 4 H200s against 12-26 us blocking). The Async forms await GPU completion off the
 * main thread (an event waited for by the async queue's thread).
 * With `{ blocking: false }` the calls stay non-blocking: a synchronous call that NCCL answers with
 * ncclInProgress (its thread is still launching the work, e.g. setting up connections on first
 * use) waits for the launch on the thread, as a blocking communicator would (until then a stream
 * sync would miss the work), at most the call's timeoutMs, else the communicator's.
 * Several ranks of one communicator on one thread (initAll) stay non-blocking unless `blocking:
 * true` is asked for: a blocking rank's first call would wait for a peer that the same thread can
 * only call afterwards. Asked for, their calls must go through nccl.group(), and NCCL 2.27 or newer
 * is needed (older ones keep one group job per thread, which the ranks' splits would share).
 */
import { GPUArray } from '../array/gpuarray';
import { NcclError, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { streamHandle } from '../cuda/driver';
import { useOn } from '../cuda/memory';
import { native } from '../cuda/native';
import { runPinned } from '../cuda/scope';
import {
  NCCL_ERROR_INFO, OPS, checkDevice, checkPlacement, checkRank, checkTimeout, collectiveOptions, communicatorArgs, ncclBuffer, opOf,
  pollUntil, sameOut, sharedBlockingUnsupported,
} from './args';
import type { CollectiveOptions, CommunicatorOptions, ReduceOptions, RootOptions } from './args';
import { group, groupState } from './group';
import { requireNccl } from './library';

const IN_PROGRESS = 7;

/** >0 inside an Async form's issue: NCCL's launch is awaited with timers there, not on the thread. */
let deferWait = 0;
/** Live communicators of this thread by unique id: several ranks of one communicator on one thread. */
const byId = new Map<string, Set<Communicator>>();

/**
 * One rank of an NCCL communicator, on one GPU. Make one per rank — in worker_threads, processes
 * or hosts — from the same `getUniqueId()` bytes; it initialises in the background (`ready`).
 * Collectives run in place by default (like torch.distributed) or into `{ out }`; each has an
 * `…Async` form that resolves when the result is on the GPU, without blocking the event loop.
 * @example
 * const comm = new nccl.Communicator(2, id, rank, { device: rank });
 * await comm.ready;
 * await comm.allReduceAsync(grad, { op: 'avg' });
 * comm.dispose();
 */
export class Communicator {
  /** Ranks in the communicator. */
  readonly nranks: number;
  /** This rank. */
  readonly rank: number;
  /** The CUDA device this rank uses. */
  readonly device: number;
  /** Resolves (with this) once initialised; rejects with NcclError (NCCL_TIMEOUT after timeoutMs, or NCCL's failure). */
  readonly ready: Promise<this>;
  #handle: NativeAddon.NcclCommHandle | null;
  #failure: NcclError | null = null;
  readonly #waitMs: number;
  /** True until `ready` settles: the init and the split are NCCL's work, calls wait for both. */
  #starting = true;
  /** True once calls go to the blocking communicator the split made. */
  #split = false;
  /** This thread's other ranks of the same communicator share this key in `byId`. */
  readonly #id: string;
  /** Streams collectives were queued on: disposeAsync waits for each before finalizing. */
  readonly #streams = new Set<NativeAddon.StreamHandle | null>();

  constructor(nranks: number, uniqueId: Uint8Array, rank: number, options: CommunicatorOptions = {}) {
    const { timeoutMs, blocking } = communicatorArgs(nranks, uniqueId, rank, options);
    requireNccl();
    const device = options.device ?? native.currentDevice();
    if (typeof device !== 'number' || !Number.isInteger(device) || device < 0) {
      throw rangeError('ERR_OUT_OF_RANGE', `The "device" option must be a device ordinal. Received ${describe(device)}`);
    }
    this.nranks = nranks;
    this.rank = rank;
    this.device = device;
    this.#waitMs = timeoutMs;
    this.#handle = native.ncclCommInitRank(nranks, uniqueId, rank, device, false, options.cgaClusterSize ?? -1);
    this.#id = Buffer.from(uniqueId.buffer, uniqueId.byteOffset, 128).toString('hex');
    if (!byId.has(this.#id)) byId.set(this.#id, new Set());
    byId.get(this.#id)!.add(this);
    const init = pollUntil(() => this.#state('ncclCommInitRankConfig'), timeoutMs, () => this.#timedOut('ncclCommInitRankConfig',
      `${nranks - 1} other rank(s) did not all join within ${timeoutMs} ms (is every rank started with the same id, ` +
      'and is the process that made the id still running?)'));
    const split = blocking === false ? init : init.then(() => {
      if (this.#shared() && blocking === undefined) return; // several ranks on this thread: non-blocking
      const old = this.#shared() ? sharedBlockingUnsupported() : null;
      if (old) this.#fail(old);
      try {
        native.ncclCommSplitWork(this.#live(), rank);
      } catch (e) {
        this.#fail(e as NcclError);
      }
      return pollUntil(() => this.#state('ncclCommSplit'), timeoutMs, () => this.#timedOut('ncclCommSplit',
        `the blocking communicator was not made within ${timeoutMs} ms (does every rank pass the same "blocking"?)`))
        .then(() => { this.#split = true; });
    });
    this.ready = split.finally(() => { this.#starting = false; }).then(() => this);
    this.ready.catch(() => {}); // the failure is also thrown by the next call: no unhandled rejection
  }

  /** True while the communicator can be used (not disposed, aborted or failed). */
  get usable(): boolean { return this.#handle !== null && this.#failure === null; }

  /**
   * The failure NCCL reports for this communicator now (a peer failed, a network error…), or
   * null; a failed communicator is aborted and every later call throws that NcclError.
   */
  get error(): NcclError | null {
    if (this.#handle && !this.#failure) {
      try { this.#idle('ncclCommGetAsyncError'); } catch { /* recorded in #failure */ }
    }
    return this.#failure;
  }

  /**
   * True when NCCL has finished the init and every earlier call (they are queued on their streams);
   * false while it is still working on them. A non-blocking query; throws the communicator's
   * NcclError if it failed, and TypeError ERR_USE_AFTER_DISPOSE after dispose().
   * @example
   * while (!comm.isIdle()) await new Promise((r) => setTimeout(r, 1));
   */
  isIdle(): boolean {
    return this.#idle('ncclCommGetAsyncError');
  }

  /** True when idle; false while NCCL is still working on init or an earlier call; throws a failure. */
  #idle(call: string): boolean {
    return this.#state(call) && !this.#starting;
  }

  /** NCCL's state of the communicator: true idle, false in progress; throws a failure. */
  #state(call: string): boolean {
    if (this.#failure) throw this.#failure;
    const h = this.#live();
    const st = native.ncclCommState(h);
    if (st === 0) return true;
    if (st === IN_PROGRESS) return false;
    return this.#fail((native.ncclErrorOf(h, st, call) as NcclError | null) ??
      new NcclError(`${call} failed with status ${st}`, { code: 'NCCL_ERROR_UNKNOWN', status: st, call }));
  }

  #live(): NativeAddon.NcclCommHandle {
    if (this.#failure) throw this.#failure;
    if (!this.#handle) throw typeError('ERR_USE_AFTER_DISPOSE', 'This NCCL communicator was disposed');
    return this.#handle;
  }

  /** True while this thread holds another live rank of the same communicator. */
  #shared(): boolean {
    return (byId.get(this.#id)?.size ?? 0) > 1;
  }

  /** Leaves the thread's table of live ranks (dispose, abort, failure). */
  #forget(): void {
    const set = byId.get(this.#id);
    set?.delete(this);
    if (set?.size === 0) byId.delete(this.#id);
  }

  /** @internal A failed group end: the communicators whose calls it held fail with its error. */
  failedGroup(e: NcclError): void {
    if (this.#handle && !this.#failure) try { this.#fail(e); } catch { /* recorded */ }
  }

  /** Records the failure, aborts the communicator and throws. */
  #fail(e: NcclError): never {
    this.#forget();
    this.#failure = e;
    const h = this.#handle;
    this.#handle = null;
    if (h) try { native.ncclCommRelease(h, true); } catch { /* already failed */ }
    throw e;
  }

  #timedOut(call: string, why: string): NcclError {
    try {
      this.#fail(new NcclError(`${call} timed out: ${why}. The communicator was aborted.`, NCCL_ERROR_INFO('NCCL_TIMEOUT', call)));
    } catch (e) {
      return e as NcclError;
    }
  }

  /** A synchronous call needs an idle communicator (it does not wait for an earlier Async call). */
  #ready(call: string): NativeAddon.NcclCommHandle {
    if (this.#starting && !this.#failure && this.#handle) {
      throw new NcclError(`${call}: the communicator is still initialising; await comm.ready, ` +
        'or use the Async form, which waits without blocking', NCCL_ERROR_INFO('NCCL_IN_PROGRESS', call));
    }
    if (!this.#idle(call) && groupState.depth === 0) {
      throw new NcclError(`${call}: the communicator is still initialising or busy with an earlier call; await comm.ready, ` +
        'or use the Async form, which waits without blocking', NCCL_ERROR_INFO('NCCL_IN_PROGRESS', call));
    }
    return this.#handle!;
  }

  /** Issues collective `kind`; `timeoutMs` (the call's option) bounds the wait for NCCL's launch (#launched). */
  #run(kind: number, call: string, send: GPUArray, recv: GPUArray, count: number, type: number, op: number, peer: number,
    stream: NativeAddon.StreamHandle | null, timeoutMs: number | undefined): void {
    const waitMs = timeoutMs ?? this.#waitMs;
    const h = this.#ready(call);
    if (groupState.depth === 0 && this.#split && this.#shared()) {
      throw typeError('ERR_NCCL_GROUP_REQUIRED', `${call}: this thread holds several ranks of a blocking communicator; ` +
        'call them inside nccl.group() (a rank\'s call would wait for a peer this thread can only call afterwards), ' +
        'or make them with blocking: false');
    }
    if (groupState.depth > 0) {
      if (groupState.blocking !== null && groupState.blocking !== this.#split) {
        throw typeError('ERR_NCCL_GROUP_MIXED', `${call}: one nccl.group() cannot hold calls to blocking and non-blocking ` +
          'communicators (NCCL runs a group one way); make them alike with the "blocking" option');
      }
      groupState.blocking = this.#split;
    }
    useOn(send, stream);
    useOn(recv, stream);
    this.#streams.add(stream);
    let st: number;
    try {
      st = native.ncclCollective(h, kind, send.ptr, recv.ptr, count, type, op, peer, stream);
    } catch (e) {
      // A blocking communicator does not record its own failures (NCCL keeps asyncResult for
      // non-blocking ones only): record it here, so that later calls and `error` see it.
      if (this.#split && e instanceof NcclError) this.#fail(e);
      throw e;
    }
    if (groupState.depth > 0) {
      groupState.calls.push({ comm: this, launched: () => this.#launched(call, waitMs) });
    } else if (st === IN_PROGRESS && deferWait === 0) this.#launched(call, waitMs);
  }

  /**
   * Waits on this thread until NCCL has put the calls made so far on their streams (a
   * non-blocking communicator answers ncclInProgress while its thread sets up connections or
   * launches a group; a stream sync before that would miss the work). Throws the failure, or
   * NCCL_TIMEOUT after `waitMs` (the call's timeoutMs, else the communicator's; then aborted).
   */
  #launched(call: string, waitMs: number): void {
    if (!this.#handle) return;
    if (native.ncclCommWait(this.#handle, waitMs) === IN_PROGRESS) {
      throw this.#timedOut(call, `NCCL did not launch the work within ${waitMs} ms (do the other ranks make the same call?)`);
    }
    this.#idle(call);
  }

  /**
   * Every rank's `x` reduced with `op`, on every rank: in place, or into `out`.
   * @example
   * comm.allReduce(grad, { op: 'avg' });
   */
  allReduce(x: GPUArray, opts: ReduceOptions = {}): GPUArray {
    opts = collectiveOptions(opts, 'allReduce');
    const op = opOf(opts.op);
    const [type, count] = ncclBuffer(x, 'x', op);
    checkDevice(x, 'x', this.device);
    const out = sameOut(opts.out, x, count, type, 'allReduce', this.device);
    this.#run(0, 'ncclAllReduce', x, out, count, type, OPS[op], 0, streamHandle(opts.stream), opts.timeoutMs);
    return out;
  }

  /** The reduction of every rank's `x`, on rank `root` only (in place, or into `out` there). */
  reduce(x: GPUArray, opts: RootOptions = {}): GPUArray {
    opts = collectiveOptions(opts, 'reduce');
    const op = opOf(opts.op);
    const root = checkRank(opts.root ?? 0, 'root', this.nranks);
    const [type, count] = ncclBuffer(x, 'x', op);
    checkDevice(x, 'x', this.device);
    const out = sameOut(opts.out, x, count, type, 'reduce', this.device);
    this.#run(1, 'ncclReduce', x, out, count, type, OPS[op], root, streamHandle(opts.stream), opts.timeoutMs);
    return out;
  }

  /** Rank `root`'s `x`, copied to every rank (in place, or into `out`). */
  broadcast(x: GPUArray, opts: Omit<RootOptions, 'op'> = {}): GPUArray {
    opts = collectiveOptions(opts, 'broadcast');
    const root = checkRank(opts.root ?? 0, 'root', this.nranks);
    const [type, count] = ncclBuffer(x, 'x');
    checkDevice(x, 'x', this.device);
    const out = sameOut(opts.out, x, count, type, 'broadcast', this.device);
    this.#run(2, 'ncclBroadcast', x, out, count, type, 0, root, streamHandle(opts.stream), opts.timeoutMs);
    return out;
  }

  /**
   * Every rank's `x`, concatenated in rank order, on every rank: `out` has nranks × x.size
   * elements (default: a new array of shape [nranks, ...x.shape]).
   */
  allGather(x: GPUArray, opts: Omit<ReduceOptions, 'op'> = {}): GPUArray {
    opts = collectiveOptions(opts, 'allGather');
    const [type, count] = ncclBuffer(x, 'x');
    checkDevice(x, 'x', this.device);
    const stream = streamHandle(opts.stream);
    const out = opts.out ?? runPinned(this.device, () => GPUArray.allocate([this.nranks, ...x.shape], x.dtype, opts.stream));
    const [t, n] = ncclBuffer(out, 'out');
    if (t !== type || n !== count * this.nranks) {
      throw rangeError('ERR_NCCL_SIZE_MISMATCH', `"out" must hold nranks × x.size = ${this.nranks * x.size} ${x.dtype.name} ` +
        `elements. Received ${out.size} × ${out.dtype.name}`);
    }
    checkDevice(out, 'out', this.device);
    checkPlacement(x, out, x.ptr === out.ptr + BigInt(this.rank * x.nbytes), 'allGather');
    this.#run(3, 'ncclAllGather', x, out, count, type, 0, 0, stream, opts.timeoutMs);
    return out;
  }

  /**
   * The reduction of every rank's `x`, split in nranks equal blocks: rank r gets block r. x.size
   * must divide by nranks; `out` has x.size / nranks elements (default: a new 1-D array).
   */
  reduceScatter(x: GPUArray, opts: ReduceOptions = {}): GPUArray {
    opts = collectiveOptions(opts, 'reduceScatter');
    const op = opOf(opts.op);
    const [type, count] = ncclBuffer(x, 'x', op);
    checkDevice(x, 'x', this.device);
    if (x.size % this.nranks !== 0) {
      throw rangeError('ERR_NCCL_SIZE_MISMATCH', `x.size (${x.size}) must be a multiple of nranks (${this.nranks})`);
    }
    const out = opts.out ?? runPinned(this.device, () => GPUArray.allocate([x.size / this.nranks], x.dtype, opts.stream));
    const [t, n] = ncclBuffer(out, 'out');
    if (t !== type || n * this.nranks !== count) {
      throw rangeError('ERR_NCCL_SIZE_MISMATCH', `"out" must hold x.size / nranks = ${x.size / this.nranks} ${x.dtype.name} ` +
        `elements. Received ${out.size} × ${out.dtype.name}`);
    }
    checkDevice(out, 'out', this.device);
    checkPlacement(x, out, out.ptr === x.ptr + BigInt(this.rank * out.nbytes), 'reduceScatter');
    this.#run(4, 'ncclReduceScatter', x, out, n, type, OPS[op], 0, streamHandle(opts.stream), opts.timeoutMs);
    return out;
  }

  /** Sends `x` to rank `peer`, which must call recv with as many elements (pair them in nccl.group for exchanges). */
  send(x: GPUArray, peer: number, opts: CollectiveOptions = {}): GPUArray {
    opts = collectiveOptions(opts, 'send');
    const p = checkRank(peer, 'peer', this.nranks);
    const [type, count] = ncclBuffer(x, 'x');
    checkDevice(x, 'x', this.device);
    this.#run(5, 'ncclSend', x, x, count, type, 0, p, streamHandle(opts.stream), opts.timeoutMs);
    return x;
  }

  /** Receives into `x` from rank `peer`. */
  recv(x: GPUArray, peer: number, opts: CollectiveOptions = {}): GPUArray {
    opts = collectiveOptions(opts, 'recv');
    const p = checkRank(peer, 'peer', this.nranks);
    const [type, count] = ncclBuffer(x, 'x');
    checkDevice(x, 'x', this.device);
    this.#run(6, 'ncclRecv', x, x, count, type, 0, p, streamHandle(opts.stream), opts.timeoutMs);
    return x;
  }

  /**
   * Resolves when NCCL has taken every call made so far (init included) and the work on `stream`
   * is done; rejects with the communicator's NcclError, or NCCL_TIMEOUT (then aborted).
   */
  async synchronizeAsync(opts: CollectiveOptions = {}): Promise<void> {
    opts = collectiveOptions(opts, 'synchronizeAsync');
    const timeoutMs = checkTimeout(opts.timeoutMs, 'timeoutMs', Infinity);
    return this.#streamDone(streamHandle(opts.stream), timeoutMs);
  }

  /** Waits without blocking for the communicator, then for `stream`; NCCL_TIMEOUT (aborted) after timeoutMs. */
  async #streamDone(stream: NativeAddon.StreamHandle | null, timeoutMs: number): Promise<void> {
    const start = Date.now();
    const timeout = (): NcclError => this.#timedOut('ncclCommGetAsyncError', `not done within ${timeoutMs} ms`);
    await pollUntil(() => this.#idle('ncclCommGetAsyncError'), timeoutMs, timeout);
    const done = native.ncclStreamDoneAsync(this.#live(), stream);
    if (timeoutMs === Infinity) return done;
    let timer: NodeJS.Timeout | undefined;
    // Aborting stops NCCL's kernels, so the stream wait ends too.
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(timeout()), Math.max(0, timeoutMs - (Date.now() - start)));
    });
    try {
      await Promise.race([done, late]);
    } finally {
      clearTimeout(timer);
    }
  }

  async #async<T>(opts: CollectiveOptions | undefined, call: string, issue: () => T): Promise<T> {
    opts = collectiveOptions(opts, `${call[4].toLowerCase()}${call.slice(5)}Async`); // ncclAllReduce: allReduceAsync
    const timeoutMs = checkTimeout(opts?.timeoutMs, 'timeoutMs', Infinity);
    await pollUntil(() => this.#idle(call), timeoutMs, () => this.#timedOut(call, `the communicator stayed busy for ${timeoutMs} ms`));
    deferWait++;
    let out: T;
    try {
      out = issue();
    } finally {
      deferWait--;
    }
    await this.synchronizeAsync({ stream: opts.stream, timeoutMs: opts.timeoutMs }); // not the collective's op, out, root
    return out;
  }

  /** allReduce, resolving when the result is on the GPU (waits for init and for NCCL without blocking). */
  allReduceAsync(x: GPUArray, opts?: ReduceOptions): Promise<GPUArray> {
    return this.#async(opts, 'ncclAllReduce', () => this.allReduce(x, opts));
  }
  /** reduce, resolving when done. */
  reduceAsync(x: GPUArray, opts?: RootOptions): Promise<GPUArray> {
    return this.#async(opts, 'ncclReduce', () => this.reduce(x, opts));
  }
  /** broadcast, resolving when done. */
  broadcastAsync(x: GPUArray, opts?: Omit<RootOptions, 'op'>): Promise<GPUArray> {
    return this.#async(opts, 'ncclBroadcast', () => this.broadcast(x, opts));
  }
  /** allGather, resolving when done. */
  allGatherAsync(x: GPUArray, opts?: Omit<ReduceOptions, 'op'>): Promise<GPUArray> {
    return this.#async(opts, 'ncclAllGather', () => this.allGather(x, opts));
  }
  /** reduceScatter, resolving when done. */
  reduceScatterAsync(x: GPUArray, opts?: ReduceOptions): Promise<GPUArray> {
    return this.#async(opts, 'ncclReduceScatter', () => this.reduceScatter(x, opts));
  }
  /** send, resolving when done. */
  sendAsync(x: GPUArray, peer: number, opts?: CollectiveOptions): Promise<GPUArray> {
    return this.#async(opts, 'ncclSend', () => this.send(x, peer, opts));
  }
  /** recv, resolving when done. */
  recvAsync(x: GPUArray, peer: number, opts?: CollectiveOptions): Promise<GPUArray> {
    return this.#async(opts, 'ncclRecv', () => this.recv(x, peer, opts));
  }

  /** Stops the communicator now (ncclCommAbort): pending work is cancelled, peers see an error. Idempotent. */
  abort(): void {
    const h = this.#handle;
    this.#forget();
    this.#handle = null;
    this.#failure ??= new NcclError('This NCCL communicator was aborted', NCCL_ERROR_INFO('NCCL_ABORTED', 'ncclCommAbort'));
    if (h) native.ncclCommRelease(h, true);
  }

  /**
   * Frees the communicator (ncclCommDestroy), which waits for its queued work like synchronize().
   * One still initialising, busy or failed is aborted instead (ncclCommAbort: destroying it would
   * wait for peers). Use disposeAsync() to wait without blocking, abort() when a peer is gone.
   * Idempotent. Dropping a Communicator without this leaks it until exit.
   */
  dispose(): void {
    const h = this.#handle;
    if (!h) return;
    let state: number;
    try {
      state = native.ncclCommState(h);
    } catch {
      state = -1;
    }
    this.#forget();
    this.#handle = null;
    native.ncclCommRelease(h, state !== 0);
  }

  /**
   * ncclCommFinalize, waited for with timers, then ncclCommDestroy. Resolves without error when a
   * failure found meanwhile has already aborted the communicator (the failure was reported to the
   * calls that met it).
   */
  async disposeAsync(opts: { timeoutMs?: number } = {}): Promise<void> {
    opts = collectiveOptions(opts, 'disposeAsync');
    const h = this.#handle;
    if (!h) return;
    const timeoutMs = checkTimeout(opts.timeoutMs, 'timeoutMs', Infinity);
    try {
      // Every stream the collectives used: a blocking communicator's finalize waits for NCCL's
      // work on them on this thread, so it must find nothing left to wait for.
      const start = Date.now();
      for (const stream of new Set([null, ...this.#streams])) {
        await this.#streamDone(stream, Math.max(1, timeoutMs - (Date.now() - start)));
      }
      native.ncclCommFinalize(h);
      await pollUntil(() => this.#idle('ncclCommFinalize'), timeoutMs,
        () => this.#timedOut('ncclCommFinalize', `not done within ${timeoutMs} ms`));
    } catch (e) {
      if (this.#handle) throw e;
      return; // failed, timed out or aborted meanwhile: already released
    }
    this.dispose();
  }

  /** dispose(), for `using`. */
  [Symbol.dispose](): void { this.dispose(); }
  /** disposeAsync(), for `await using`. */
  [Symbol.asyncDispose](): Promise<void> { return this.disposeAsync(); }
}

/**
 * One communicator per device for a single thread driving several GPUs (what ncclCommInitAll
 * does: one unique id, every rank's non-blocking init inside one group); rank i uses devices[i].
 * @example
 * const comms = await nccl.initAllAsync([0, 1]);
 * nccl.group(() => comms.forEach((c, i) => c.allReduce(xs[i])));
 */
export function initAll(devices: number[], options: Pick<CommunicatorOptions, 'timeoutMs' | 'blocking'> = {}): Communicator[] {
  if (!Array.isArray(devices) || devices.length === 0) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "devices" argument must be a non-empty array of device ordinals. Received ${describe(devices)}`);
  }
  options = checkedOptions(options, 'nccl.initAll', ['timeoutMs', 'blocking']);
  requireNccl();
  const old = options.blocking === true && devices.length > 1 ? sharedBlockingUnsupported() : null;
  if (old) throw old; // up front, not once per rank
  const id = new Uint8Array(native.ncclGetUniqueId());
  return group(() => devices.map((device, rank) => new Communicator(devices.length, id, rank, { ...options, device })));
}

/** initAll, resolving when every communicator is ready. */
export async function initAllAsync(devices: number[],
  options: Pick<CommunicatorOptions, 'timeoutMs' | 'blocking'> = {}): Promise<Communicator[]> {
  const comms = initAll(devices, options);
  return Promise.all(comms.map((c) => c.ready));
}
