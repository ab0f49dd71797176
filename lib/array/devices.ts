/**
 * Arrays and devices: `a.device`, `a.to(device)`, `a.copyTo(other)`, the device check of
 * operations (ERR_DEVICE_MISMATCH naming both devices), `{ device }` of creation functions, and
 * host transfers (get/set/item and their Promise forms) that run on the array's own device
 * wherever they are called from. docs/multigpu.md describes the model: operations run on the
 * current device and refuse arrays of another one; copies move arrays between devices.
 */
import { checkedOptions, describe, typeError } from '../base/errors';
import { Context, Device, Stream, canAccessPeer, contextDevice, currentContext, deviceArg, streamHandle } from '../cuda/driver';
import { runPinned, runScoped } from '../cuda/scope';
import * as cu from '../cuda/door';
import { useOn } from '../cuda/memory';
import { GPUArray } from './gpuarray';

/** A device: its ordinal or a driver.Device. */
export type DeviceId = number | Device;

/** TypeError ERR_DEVICE_MISMATCH, with both devices in `devices`. */
export interface DeviceMismatchError extends TypeError {
  /** Always 'ERR_DEVICE_MISMATCH'. */
  code: 'ERR_DEVICE_MISMATCH';
  /**
   * Device ordinals: the memory's device, then the other array's device or the current device
   * (the same ordinal twice for two contexts of one device).
   */
  devices: [number, number];
}

/**
 * @internal The error of an operation `what` that met memory of device `a` and, with `current`
 * false, an array of device `b` (two contexts of one device when a === b), or, with `current`
 * true, a current device `b`.
 */
export function deviceMismatch(what: string, a: number, b: number, current = false): DeviceMismatchError {
  let msg: string;
  if (!current) {
    msg = a === b
      ? `${what}: the arrays live in two different contexts of device ${a}`
      : `${what}: the arrays live on device ${a} and device ${b}; copy one over first (x.to(${a}))`;
  } else {
    msg = a === b
      ? `${what}: an array lives in another context of device ${a} than the current one (a context was pushed or popped since it was made)`
      : `${what}: an array lives on device ${a} but the current device is ${b}; run the operation inside ` +
        `withDevice(${a}, …) or copy the array with x.to(${b})`;
  }
  const e = typeError('ERR_DEVICE_MISMATCH', msg) as DeviceMismatchError;
  e.devices = [a, b];
  return e;
}

/**
 * @internal Throws ERR_DEVICE_MISMATCH unless every array (and `out`; undefined ones are skipped) lives
 * in the current context: operations run on the current device and never touch another's memory
 * (a kernel reading another device's memory without peer access faults the whole context).
 */
export function checkDevices(what: string, arrays: ReadonlyArray<GPUArray | undefined>, out?: GPUArray): void {
  let first: GPUArray | undefined;
  for (let i = 0; i <= arrays.length; i++) { // plain loop: the path of every operator call
    const x = i < arrays.length ? arrays[i] : out;
    if (x === undefined) continue;
    if (first === undefined) first = x;
    else if (x.context !== first.context) {
      throw deviceMismatch(what, contextDevice(first.context).ordinal, contextDevice(x.context).ordinal);
    }
  }
  if (first !== undefined) checkContext(what, first.context);
}

/** @internal Throws ERR_DEVICE_MISMATCH unless `context` (an array's) is the current context. */
export function checkContext(what: string, context: number): void {
  const cur = currentContext().id;
  if (context !== cur) throw deviceMismatch(what, contextDevice(context).ordinal, contextDevice(cur).ordinal, true);
}

/**
 * @internal Runs the synchronous `fn` on `device` when given (validated: RangeError
 * ERR_OUT_OF_RANGE for a device that does not exist), else where the caller is.
 */
export function onDevice<T>(device: DeviceId | undefined, fn: () => T): T {
  return device === undefined ? fn() : runPinned(deviceArg(device), fn);
}

/** @internal Like onDevice for an async `fn`: the device follows it across its awaits. */
export function onDeviceAsync<T>(device: DeviceId | undefined, fn: () => Promise<T>): Promise<T> {
  return device === undefined ? fn() : runScoped(deviceArg(device), fn);
}

/** Runs `fn` on the device of `a`'s context (as it is, for a pushed context). */
function onOwnDevice<T>(a: GPUArray, fn: () => T): T {
  if (a.context === currentContext().id) return fn();
  const d = contextDevice(a.context);
  return d.primary ? runPinned(d.ordinal, fn) : fn();
}

/** The primary-context device of `a`, for peer copies. */
function peerDevice(a: GPUArray, what: string): number {
  const d = contextDevice(a.context);
  if (!d.primary) {
    throw typeError('ERR_DEVICE_MISMATCH',
      `${what}: copies between devices move arrays of the devices' primary contexts; this array lives in a pushed context of device ${d.ordinal}`);
  }
  return d.ordinal;
}

/** Options of a.to() and a.copyTo(). */
export interface ToOptions {
  /** Stream of the destination device the copy runs on (default: its legacy stream). */
  stream?: Stream | null;
  /** Stream of the source device whose queued work the copy waits for (default: its legacy stream). */
  srcStream?: Stream | null;
  /** a.to(): a new array even when `a` is on `device` already (default false: `a` itself). */
  copy?: boolean;
}

/** Throws ERR_DEVICE_MISMATCH unless the streams of `o` belong to the devices they order. */
function checkStreams(o: ToOptions, dst: number, src: number, what: string): void {
  for (const [s, d, side] of [[o.stream, dst, 'stream'], [o.srcStream, src, 'srcStream']] as const) {
    if (s instanceof Stream && s.device !== d) {
      const e = deviceMismatch(what, s.device, d);
      e.message = `${what}: the "${side}" option is a stream of device ${s.device}; this copy needs one of device ${d}`;
      throw e;
    }
  }
}

/** Copies C-contiguous `src` into C-contiguous `dst` of the same size and dtype, across devices. */
/** Device pairs seen by peer copies: whether their peer link is on (enabled both ways once). */
const peerLinks = new Map<string, boolean>();

/**
 * Turns the peer link between devices `a` and `b` on, both ways, the first time they copy (as
 * PyTorch does): without it the driver stages cuMemcpyPeer through the host (37 GB/s instead of
 * 381 GB/s between two NVLinked H200s). Devices that cannot be peers keep the staged copy.
 */
function linkPeers(a: number, b: number): void {
  const key = a < b ? `${a},${b}` : `${b},${a}`;
  if (peerLinks.has(key)) return;
  let on = false;
  if (canAccessPeer(a, b) && canAccessPeer(b, a)) {
    try {
      runPinned(a, () => Context.enablePeerAccess(b));
      runPinned(b, () => Context.enablePeerAccess(a));
      on = true;
    } catch {
      // CUDA_ERROR_TOO_MANY_PEERS and the like: the staged copy still works, as it did before.
    }
  }
  peerLinks.set(key, on);
}

function peerCopy(dst: GPUArray, src: GPUArray, opts: ToOptions): void {
  const s = streamHandle(opts.stream), ss = streamHandle(opts.srcStream);
  const to = peerDevice(dst, 'copyTo()'), from = peerDevice(src, 'to()');
  if (to !== from) linkPeers(to, from);
  cu.memcpyPeer(dst.ptr, to, src.ptr, from, src.nbytes, s, ss);
  // Frees wait for the copy: the destination's on its stream; the source stream waited for it.
  useOn(dst, s);
  useOn(src, ss);
}

/** The options of to() and copyTo(), checked by name (torch's non_blocking or memory_format: refused, not ignored). */
function toOpts(opts: ToOptions | undefined, what: string): ToOptions {
  return checkedOptions(opts, what, ['stream', 'srcStream', 'copy']);
}

declare module './gpuarray' {
  interface GPUArray {
    /** The ordinal of the device whose memory holds this array. */
    readonly device: number;
    /**
     * This array on `device`: a copy there (cuMemcpyPeerAsync, ordered after the work queued on
     * the source device's stream and before its later work, so neither side needs a sync; the
     * first copy between two devices that can be peers turns their peer link on, both ways), or
     * this array itself when it is on `device` already (like torch's `Tensor.to`; `{ copy: true }`
     * always copies). The copy is C-contiguous.
     * @example
     * const b = a.to(1); // a on device 0, b on device 1
     */
    to(device: DeviceId, opts?: ToOptions): GPUArray;
    /**
     * Copies this array into `other` (same shape; converted to its dtype), on whichever devices
     * they live; returns `other`.
     * @example
     * a.copyTo(withDevice(1, () => gpuarray.empty(a.shape, a.dtype)));
     */
    copyTo(other: GPUArray, opts?: ToOptions): GPUArray;
  }
}

const proto = GPUArray.prototype as unknown as Record<string, unknown>;

Object.defineProperty(GPUArray.prototype, 'device', {
  get(this: GPUArray): number {
    return contextDevice(this.context).ordinal;
  },
  configurable: true,
});

proto.to = function (this: GPUArray, device: DeviceId, opts?: ToOptions): GPUArray {
  const o = toOpts(opts, 'GPUArray.to()');
  const d = deviceArg(device);
  this.check();
  if (contextDevice(this.context).ordinal === d) {
    if (!o.copy) return this;
    return onOwnDevice(this, () => {
      checkDevices('to()', [this]); // before copy() allocates: an array of a popped context is refused
      return this.copy({ stream: o.stream });
    });
  }
  const from = peerDevice(this, 'to()');
  checkStreams(o, d, from, 'to()');
  const src = runPinned(from, () => this.contiguous());
  try {
    const out = runPinned(d, () => GPUArray.allocate(this.shape, this.dtype, o.stream));
    try {
      peerCopy(out, src, o);
    } catch (e) {
      out.dispose();
      throw e;
    }
    return out;
  } finally {
    if (src !== this) src.dispose();
  }
};

proto.copyTo = function (this: GPUArray, other: GPUArray, opts?: ToOptions): GPUArray {
  const o = toOpts(opts, 'GPUArray.copyTo()');
  if (!(other instanceof GPUArray)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `copyTo(other): other must be a GPUArray. Received ${describe(other)}`);
  }
  this.check();
  other.check();
  if (this.context === other.context) return onOwnDevice(other, () => other.set(this));
  const same = other.dtype === this.dtype && other.flags.cContiguous &&
    other.shape.length === this.shape.length && other.shape.every((n, i) => n === this.shape[i]);
  checkStreams(o, contextDevice(other.context).ordinal, contextDevice(this.context).ordinal, 'copyTo()');
  if (same) {
    const src = runPinned(peerDevice(this, 'copyTo()'), () => this.contiguous());
    try {
      peerCopy(other, src, o);
    } finally {
      if (src !== this) src.dispose();
    }
    return other;
  }
  // Another layout or dtype: over to the destination's device, then converted/broadcast there.
  const tmp = this.to(peerDevice(other, 'copyTo()'), o);
  try {
    return onOwnDevice(other, () => other.set(tmp));
  } finally {
    if (tmp !== this) tmp.dispose();
  }
};

// Host transfers run on the array's device wherever they are called from (the copy must follow
// the work queued on that device's stream). set(GPUArray) from another device copies across.
for (const name of ['get', 'getAsync', 'set', 'setAsync', 'item'] as const) {
  const inner = proto[name] as (this: GPUArray, ...args: unknown[]) => unknown;
  proto[name] = function (this: GPUArray, ...args: unknown[]): unknown {
    const src = args[0];
    if (name === 'set' && src instanceof GPUArray && src.context !== this.context) {
      src.copyTo(this);
      return this;
    }
    return onOwnDevice(this, () => inner.apply(this, args));
  };
}
