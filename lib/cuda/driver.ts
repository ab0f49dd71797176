/// <reference path="../../types/addon.d.ts" preserve="true" />
/**
 * pycuda.driver: devices, contexts, streams and events. Memory lives in memory.ts, modules and
 * launches in compiler.ts / launch.ts; index.ts gathers them all under `driver`.
 */
import { DEVICE_ATTRIBUTES, attributeNumber, camelName } from './attributes';
import { checkSize, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { native } from './native';
import { deviceEpoch, runScoped, scopeDevice, setScopeDevice, syncDevice } from './scope';
import { ABORT_KEYS, type AbortOptions, abortable } from '../base/abort';

/**
 * Whether a CUDA driver and at least one device are present. Never throws. It says nothing about
 * the state of a context: after a sticky fault it is still true, while launches in the faulted
 * context keep throwing (`err.poisoned`).
 * @example
 * if (!cuda.isAvailable()) console.log('no GPU: skipping');
 */
export function isAvailable(): boolean {
  try {
    return native.driverStatus().ok;
  } catch {
    return false;
  }
}

/** Why CUDA is or is not usable here: what {@link availability} returns. */
export interface Availability {
  /** A driver for CUDA 12.0 or newer and at least one device: the same as `isAvailable()`. */
  ok: boolean;
  /** 'CUDA_SUCCESS', or why not: 'CUDA_DRIVER_NOT_FOUND', 'CUDA_DRIVER_TOO_OLD', 'CUDA_ERROR_NO_DEVICE', … */
  code: string;
  /** What is wrong and what to install ('' when ok). */
  message: string;
  /** The driver library asked for: `NODECUDA_LIBCUDA`, else 'libcuda.so.1'. */
  library: string;
  /** dlopen's message when the library did not open, else null. */
  dlopenError: string | null;
  /** The driver's CUDA version as cuDriverGetVersion gives it (12040 for 12.4), null when unknown. */
  driverVersion: number | null;
  /** The same as 'major.minor' ('12.4'), null when unknown. */
  cudaVersion: string | null;
  /** The oldest driver CUDA version nodecuda accepts ('12.0', R525). */
  minCudaVersion: string;
  /**
   * Driver entry points newer than CUDA 12.0 that this driver lacks (e.g. 'cuFuncGetParamInfo',
   * CUDA 12.4); what uses one throws CudaError CUDA_ERROR_NOT_SUPPORTED naming the version needed.
   */
  missingEntryPoints: string[];
}

/** '12.4' for 12040. */
export function cudaVersionString(v: number): string {
  return `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 10)}`;
}

/**
 * Why CUDA is or is not usable here, with the driver's version and the loader's messages. Never
 * throws; `ok` is what `isAvailable()` returns.
 * @example
 * const a = cuda.availability();
 * if (!a.ok) console.log(`${a.code}: ${a.message}`);
 */
export function availability(): Availability {
  let s: NativeAddon.DriverStatus;
  try {
    s = native.driverStatus();
  } catch (e) {
    return {
      ok: false, code: (e as { code?: string }).code ?? 'CUDA_DRIVER_NOT_FOUND', message: String((e as Error).message),
      library: process.env.NODECUDA_LIBCUDA || 'libcuda.so.1', dlopenError: null, driverVersion: null, cudaVersion: null,
      minCudaVersion: '12.0', missingEntryPoints: [],
    };
  }
  return {
    ok: s.ok,
    code: s.code,
    message: s.message,
    library: s.path,
    dlopenError: s.dlopenError || null,
    driverVersion: s.version || null,
    cudaVersion: s.version ? cudaVersionString(s.version) : null,
    minCudaVersion: cudaVersionString(s.minVersion),
    missingEntryPoints: s.found ? s.missingOptional : [],
  };
}

/** Initializes the driver; implicit on first use, allowed and idempotent. Throws CudaError. */
export function init(): void {
  native.deviceCount();
}

// The calling thread's current context as [generation, id], cached until something that can change
// it (useDevice, a withDevice scope, push/pop, makeContext, reset) runs: hot paths (kernel caches,
// GPUArray creation) then need no native call to know which context they are in.
let currentCtx: { generation: number; id: number } | null = null;
let currentEpoch = -1;
// Device ordinal (and whether it is the device's primary context) of every context id seen.
const contextDevices = new Map<number, { ordinal: number; primary: boolean }>();

/** @internal Forget the cached current context (after anything that may change it). */
export function contextChanged(): void {
  currentCtx = null;
}

const smCounts = new Map<number, number>();

/** @internal Multiprocessors of the current context's device (cached per ordinal). */
export function multiprocessorCount(): number {
  // The cached current context (no native call: this runs on every launch of a grid-stride kernel).
  const ordinal = contextDevice(currentContext().id).ordinal;
  let sms = smCounts.get(ordinal);
  if (sms === undefined) {
    sms = native.deviceAttribute(ordinal, 16); // CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT
    smCounts.set(ordinal, sms);
  }
  return sms;
}

let firstContextHooks: Array<() => void> | null = [];

/** @internal `fn` runs once, right after the process's first context is known (compiler.ts: one-time setup). */
export function onFirstContext(fn: () => void): void {
  firstContextHooks?.push(fn);
}

/** @internal The current context's id and generation (cached). */
export function currentContext(): { generation: number; id: number } {
  syncDevice();
  if (!currentCtx || currentEpoch !== deviceEpoch.value) {
    const [ordinal, primary, generation, id] = native.ctxInfo();
    currentCtx = { generation, id };
    currentEpoch = deviceEpoch.value;
    contextDevices.set(id, { ordinal, primary });
    const hooks = firstContextHooks;
    if (hooks) {
      firstContextHooks = null;
      for (const f of hooks) f();
    }
  }
  return currentCtx;
}

/**
 * @internal The device ordinal of a context id that currentContext() returned, and whether it is
 * that device's primary context (the one nodecuda uses unless a context was pushed).
 */
export function contextDevice(id: number): { ordinal: number; primary: boolean } {
  const d = contextDevices.get(id);
  if (!d) throw new Error(`nodecuda: unknown context id ${id}`); // every array's id came from currentContext()
  return d;
}

function ordinalArg(n: unknown): number {
  return checkSize(n, 'ordinal', 2 ** 31 - 1);
}

/**
 * A CUDA device (pycuda.driver.Device).
 * @example
 * const dev = new driver.Device(0);
 * console.log(dev.name(), dev.computeCapability(), dev.getAttribute('multiprocessorCount'));
 */
export class Device {
  /** The device's ordinal: 0 to Device.count() - 1, among the devices CUDA_VISIBLE_DEVICES leaves visible. */
  readonly ordinal: number;
  constructor(ordinal = 0) {
    this.ordinal = ordinalArg(ordinal);
    const count = native.deviceCount();
    if (this.ordinal >= count) {
      const e = new RangeError(`Device ${this.ordinal} does not exist: ${count} device(s) visible`);
      (e as RangeError & { code: string }).code = 'ERR_OUT_OF_RANGE';
      throw e;
    }
  }
  /** Number of visible devices (honours CUDA_VISIBLE_DEVICES). */
  static count(): number {
    return native.deviceCount();
  }
  /** Marketing name, e.g. "NVIDIA H100 80GB HBM3". */
  name(): string {
    return native.deviceName(this.ordinal);
  }
  /** [major, minor], e.g. [9, 0]. */
  computeCapability(): [number, number] {
    return [
      native.deviceAttribute(this.ordinal, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MAJOR),
      native.deviceAttribute(this.ordinal, DEVICE_ATTRIBUTES.COMPUTE_CAPABILITY_MINOR),
    ];
  }
  /** Total device memory in bytes. */
  totalMemory(): number {
    return native.deviceTotalMem(this.ordinal);
  }
  /** PCI bus id, e.g. "0000:19:00.0". */
  pciBusId(): string {
    return native.devicePciBusId(this.ordinal);
  }
  /** One attribute by name ('MAX_THREADS_PER_BLOCK' or 'maxThreadsPerBlock') or number. */
  getAttribute(name: string | number): number {
    return native.deviceAttribute(this.ordinal, attributeNumber(DEVICE_ATTRIBUTES, name, 'device'));
  }
  /** Every attribute the driver reports, camelCase keys. */
  getAttributes(): Record<string, number> {
    const out: Record<string, number> = {};
    const seen = new Set<number>();
    for (const [key, num] of Object.entries(DEVICE_ATTRIBUTES)) {
      if (seen.has(num)) continue;
      seen.add(num);
      try {
        out[camelName(key)] = native.deviceAttribute(this.ordinal, num);
      } catch {
        // attributes newer than the installed driver are left out
      }
    }
    return out;
  }
  /** The device's primary context (the one nodecuda uses by default). */
  retainPrimaryContext(): Context {
    return new Context(native.ctxPrimary(this.ordinal));
  }
  /** Creates a new (non-primary) context and pushes it on this thread, like PyCUDA. */
  makeContext(flags = 0): Context {
    syncDevice();
    const ctx = new Context(native.ctxCreate(this.ordinal, checkSize(flags, 'flags', 2 ** 31 - 1)));
    contextChanged();
    ctx.push();
    return ctx;
  }
  /**
   * Resets the device's primary context (cuDevicePrimaryCtxReset): frees everything in it (every
   * allocation, module, stream and event of the context is gone afterwards). It does not clear a
   * sticky fault: after one (`err.poisoned`), the driver refuses the reset and only a new process
   * can use the device (docs/errors.md, "Sticky faults").
   * @example
   * new driver.Device(0).reset();
   */
  reset(): void {
    contextChanged();
    native.deviceReset(this.ordinal);
  }
}

/**
 * Makes device `n` (an ordinal or a Device) current: later allocations, compiles and launches use
 * its primary context. Outside `withDevice` it sets the thread's device; inside a `withDevice`
 * scope it changes that scope's device until the scope ends (like CuPy's `Device.use()` inside a
 * `with` block). Throws RangeError ERR_OUT_OF_RANGE for a device that does not exist.
 * @example
 * driver.useDevice(1);
 */
export function useDevice(n: number | Device): void {
  const ordinal = n instanceof Device ? n.ordinal : ordinalArg(n);
  native.useDevice(ordinal); // validates (RangeError ERR_OUT_OF_RANGE)
  setScopeDevice(ordinal);
  contextChanged();
}

/**
 * @internal A device argument: an ordinal or a Device; TypeError ERR_INVALID_ARG_TYPE for
 * anything else, RangeError ERR_OUT_OF_RANGE for a negative or fractional ordinal and (naming the
 * count) for a device that does not exist.
 */
export function deviceArg(d: unknown, name = 'device'): number {
  return deviceExists(ordinalOf(d, name), name);
}

function ordinalOf(d: unknown, name: string): number {
  if (d instanceof Device) return d.ordinal;
  if (typeof d !== 'number') {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a device ordinal or a driver.Device. Received ${describe(d)}`);
  }
  if (!Number.isInteger(d) || d < 0) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" argument must be an integer >= 0. Received ${d}`);
  }
  return d;
}

function deviceExists(d: number, name: string): number {
  const count = native.deviceCount();
  if (d >= count) {
    throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" argument is device ${d}, which does not exist: ${count} device(s) visible (0 to ${count - 1})`);
  }
  return d;
}

/**
 * Whether device `a` can map device `b`'s memory (cuDeviceCanAccessPeer); true for a device and
 * itself. Peer access must still be enabled (Context.enablePeerAccess) before kernels on `a`
 * touch `b`'s memory; copies between devices (`arr.to(n)`, `copyTo`) enable it themselves.
 * @example
 * driver.canAccessPeer(0, 1);
 */
export function canAccessPeer(a: number | Device, b: number | Device): boolean {
  const x = ordinalOf(a, 'a'), y = ordinalOf(b, 'b'); // both argument types before the driver
  deviceExists(x, 'a');
  deviceExists(y, 'b');
  return x === y || native.deviceCanAccessPeer(x, y);
}

/**
 * Runs `fn` with device `device` (an ordinal or a Device) as the current device, like CuPy's
 * `with cupy.cuda.Device(n):`, and returns what `fn` returns (its Promise, for an async `fn`).
 * Everything `fn` does — arrays it creates, kernels it compiles and launches, streams and events
 * it makes — uses that device's primary context. The scope follows `fn`'s asynchronous work:
 * code after an `await` inside `fn`, and callbacks and timers it schedules, still run on `device`,
 * while code outside the scope (interleaved with it at those awaits) keeps its own device. Scopes
 * nest (the innermost wins); `driver.useDevice(n)` inside a scope changes that scope's device
 * until it ends. A context pushed with `Context.push()` still takes precedence, as in CUDA.
 * Throws RangeError ERR_OUT_OF_RANGE for a device that does not exist.
 * @example
 * const b = withDevice(1, () => gpuarray.arange(10).mul(2)); // computed on device 1
 * await withDevice(1, async () => { const x = await gpuarray.toGpuAsync(data); ... });
 */
export function withDevice<T>(device: number | Device, fn: () => T): T {
  if (typeof fn !== 'function') {
    throw typeError('ERR_INVALID_ARG_TYPE', `withDevice(device, fn): fn must be a function. Received ${describe(fn)}`);
  }
  return runScoped(deviceArg(device), fn);
}

/**
 * The device the calling code works on: the innermost withDevice scope's, else the one chosen
 * with useDevice (default 0). A context pushed with Context.push() is not considered: see
 * Context.getDevice().
 * @example
 * withDevice(0, () => driver.getDevice()); // 0
 */
export function getDevice(): number {
  return scopeDevice();
}

/**
 * A CUDA context. nodecuda makes the right context current on every call, so most programs
 * never touch this; push()/pop() are for code that manages contexts explicitly.
 * @example
 * const ctx = new driver.Device(0).makeContext(); ... driver.Context.pop();
 */
export class Context {
  /** @internal */
  readonly handle: NativeAddon.ContextHandle;
  /** @internal */
  constructor(handle: NativeAddon.ContextHandle) {
    this.handle = handle;
  }
  /** Makes this context current on this thread until pop(). */
  push(): void {
    native.ctxPush(this.handle);
    contextChanged();
  }
  /** Device of this context. */
  device(): Device {
    return new Device(native.ctxInfo(this.handle)[0]);
  }
  /** Removes the context pushed last on this thread; returns it (or null when none). */
  static pop(): Context | null {
    const h = native.ctxPop();
    contextChanged();
    return h ? new Context(h) : null;
  }
  /** The thread's current context. */
  static getCurrent(): Context {
    syncDevice();
    return new Context(native.ctxCurrent());
  }
  /** Device of the current context. */
  static getDevice(): Device {
    syncDevice();
    return new Device(native.ctxInfo()[0]);
  }
  /** Waits for all work in the current context. */
  static synchronize(): void {
    syncDevice();
    native.ctxSynchronize();
  }
  /**
   * Lets the current context (or `from`) read and write memory of `peer` (a Context, or a Device /
   * ordinal for its primary context) in kernels: cuCtxEnablePeerAccess, plus cuMemPoolSetAccess on
   * the peer device's memory pool, since stream-ordered pool allocations (nodecuda's default)
   * ignore context peer access. Idempotent: access already enabled is not an error; a device and
   * itself need nothing. Throws CudaError (e.g. CUDA_ERROR_PEER_ACCESS_UNSUPPORTED) where the two
   * devices cannot be peers: check `driver.canAccessPeer(a, b)` first. Peer copies (`a.to(n)`,
   * `copyTo`) call this themselves, both ways, the first time two devices copy.
   * @example
   * if (driver.canAccessPeer(0, 1)) withDevice(0, () => driver.Context.enablePeerAccess(1));
   */
  static enablePeerAccess(peer: Context | Device | number, from?: Context): void {
    if (from !== undefined && !(from instanceof Context)) {
      throw typeError('ERR_INVALID_ARG_TYPE', `The "from" argument must be a driver.Context. Received ${describe(from)}`);
    }
    const p = peer instanceof Context ? peer.handle : native.ctxPrimary(deviceArg(peer, 'peer'));
    syncDevice();
    native.ctxEnablePeerAccess(p, from?.handle);
  }
  /** Resolves when all work in the current context is done (waits off the main thread). */
  static synchronizeAsync(opts: AbortOptions = {}): Promise<void> {
    const { signal } = checkedOptions(opts, 'Context.synchronizeAsync()', ABORT_KEYS);
    syncDevice();
    return abortable(() => native.ctxSynchronizeAsync(), signal);
  }
}

/**
 * [free, total] device memory in bytes.
 * @example
 * const [free, total] = driver.memGetInfo();
 */
export function memGetInfo(): [number, number] {
  syncDevice();
  return native.memGetInfo();
}

/** Flags for Stream (CU_STREAM_*). */
export const streamFlags = Object.freeze({
  /** CU_STREAM_DEFAULT: work on the stream synchronizes with the legacy default stream. */
  DEFAULT: 0,
  /** CU_STREAM_NON_BLOCKING: no implicit synchronization with the legacy default stream. */
  NON_BLOCKING: 1,
});
/** Flags for Event (CU_EVENT_*). */
export const eventFlags = Object.freeze({
  /** CU_EVENT_DEFAULT: an event that records timestamps (for timeSince/timeTill). */
  DEFAULT: 0,
  /** CU_EVENT_BLOCKING_SYNC: synchronize() puts the thread to sleep until the event completes, instead of spin-waiting. */
  BLOCKING_SYNC: 1,
  /** CU_EVENT_DISABLE_TIMING: no timestamps (best for cross-stream waits and queries); timeSince/timeTill then throw. */
  DISABLE_TIMING: 2,
  /**
   * CU_EVENT_INTERPROCESS: the event may be shared between processes (CUDA requires DISABLE_TIMING
   * with it); nodecuda has no call that exports it.
   */
  INTERPROCESS: 4,
});

/**
 * A CUDA stream: work queued on it runs in order; different streams may overlap.
 * @example
 * const s = new driver.Stream(); fn(a, { block: [256], grid: [64], stream: s }); await s.synchronizeAsync();
 */
export class Stream {
  #handle: NativeAddon.StreamHandle | null;
  /** Ordinal of the device the stream belongs to (the current one when it was made). */
  readonly device: number;
  constructor(flags = 0) {
    this.device = contextDevice(currentContext().id).ordinal; // syncs the scope's device first
    this.#handle = native.streamCreate(checkSize(flags, 'flags', 2 ** 31 - 1));
  }
  /** @internal The native handle; throws if disposed. */
  get handle(): NativeAddon.StreamHandle {
    if (!this.#handle) throw typeError('ERR_USE_AFTER_DISPOSE', 'This Stream was disposed');
    return this.#handle;
  }
  /** Blocks until all work queued on the stream is done. */
  synchronize(): void {
    native.streamSynchronize(this.handle);
  }
  /** Resolves when all work queued so far is done, without blocking the event loop. */
  synchronizeAsync(opts: AbortOptions = {}): Promise<void> {
    const { signal } = checkedOptions(opts, 'Stream.synchronizeAsync()', ABORT_KEYS);
    return abortable(() => native.streamSynchronizeAsync(this.handle), signal);
  }
  /** True when all queued work is done. */
  isDone(): boolean {
    return native.streamQuery(this.handle);
  }
  /** Makes later work on this stream wait for `event`. */
  waitForEvent(event: Event): void {
    native.streamWaitEvent(this.handle, eventHandle(event));
  }
  /** Destroys the stream now (idempotent); queued work still completes. */
  dispose(): void {
    if (this.#handle) native.streamDestroy(this.#handle);
    this.#handle = null;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}

/** @internal The native stream of an optional Stream argument (null: the legacy default stream). */
export function streamHandle(s: Stream | null | undefined): NativeAddon.StreamHandle | null {
  if (s === undefined || s === null) return null;
  if (!(s instanceof Stream)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "stream" option must be a driver.Stream. Received ${describe(s)}`);
  }
  return s.handle;
}

function eventHandle(e: unknown): NativeAddon.EventHandle {
  if (!(e instanceof Event)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `Expected a driver.Event. Received ${describe(e)}`);
  }
  return e.handle;
}

/**
 * A CUDA event: a marker in a stream, for timing and cross-stream waits.
 * @example
 * const start = new driver.Event().record(); fn(...); const end = new driver.Event().record();
 * end.synchronize(); console.log(end.timeSince(start), 'ms');
 */
export class Event {
  #handle: NativeAddon.EventHandle | null;
  constructor(flags = 0) {
    syncDevice();
    this.#handle = native.eventCreate(checkSize(flags, 'flags', 2 ** 31 - 1));
  }
  /** @internal */
  get handle(): NativeAddon.EventHandle {
    if (!this.#handle) throw typeError('ERR_USE_AFTER_DISPOSE', 'This Event was disposed');
    return this.#handle;
  }
  /** Records the event on `stream` (default: the legacy stream); returns this. */
  record(stream?: Stream | null): this {
    native.eventRecord(this.handle, streamHandle(stream));
    return this;
  }
  /** Blocks until the recorded work is done; returns this. */
  synchronize(): this {
    native.eventSynchronize(this.handle);
    return this;
  }
  /** Resolves when the recorded work is done. */
  synchronizeAsync(opts: AbortOptions = {}): Promise<void> {
    const { signal } = checkedOptions(opts, 'Event.synchronizeAsync()', ABORT_KEYS);
    return abortable(() => native.eventSynchronizeAsync(this.handle), signal);
  }
  /** True when the recorded work is done. */
  query(): boolean {
    return native.eventQuery(this.handle);
  }
  /** Milliseconds from `start` to this event. */
  timeSince(start: Event): number {
    return native.eventElapsed(eventHandle(start), this.handle);
  }
  /** Milliseconds from this event to `end`. */
  timeTill(end: Event): number {
    return native.eventElapsed(this.handle, eventHandle(end));
  }
  /** Destroys the event now, or when a pending synchronizeAsync() wait ends (idempotent). */
  dispose(): void {
    if (this.#handle) native.eventDestroy(this.#handle);
    this.#handle = null;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void {
    this.dispose();
  }
}
