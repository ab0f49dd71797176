/**
 * The native door: the addon entry points that the layers above lib/cuda/ use, as plain functions.
 * Only lib/cuda/ (and lib/gl/, the GL capability's own bindings) may import `native`; eslint's
 * `no-restricted-imports` enforces it. Each function reads `native.<name>` at call time, so a test
 * that spies on `native` still sees every call, and adds one inlinable call frame (no allocation).
 */
import { native } from './native';
import { syncDevice } from './scope';
import { contextDevice, currentContext, multiprocessorCount } from './driver';
export { addonPath, addonAttempts } from './native';

type A = NativeAddon.Addon;
type H = NativeAddon.HostBuffer;
type P = NativeAddon.Pinned;
type S = NativeAddon.StreamHandle | null;

// ---- kernels (hot path: explicit parameters, no rest/spread) -----------------------------------

// Launches: ArgPacker.launch (args.ts), the one launch door.

export function occupancyMaxActiveBlocks(fn: NativeAddon.FunctionHandle, blockSize: number, sharedBytes: number): number {
  return native.occupancyMaxActiveBlocks(fn, blockSize, sharedBytes);
}

const resident = new WeakMap<object, Map<number, number>>();
/**
 * Blocks of `blockSize` threads (no dynamic shared memory) of `fn` the device holds at once: SMs ×
 * occupancy, at least one an SM; cached per function handle (a handle belongs to one context).
 */
export function residentBlocks(fn: NativeAddon.FunctionHandle, blockSize: number): number {
  let byBlock = resident.get(fn);
  if (!byBlock) resident.set(fn, (byBlock = new Map()));
  let r = byBlock.get(blockSize);
  if (r === undefined) byBlock.set(blockSize, (r = multiprocessorCount() * Math.max(1, occupancyMaxActiveBlocks(fn, blockSize, 0))));
  return r;
}

export function moduleFunction(mod: NativeAddon.ModuleHandle, name: string): NativeAddon.FunctionHandle {
  return native.moduleFunction(mod, name);
}

export function funcAttribute(fn: NativeAddon.FunctionHandle, attribute: number): number {
  return native.funcAttribute(fn, attribute);
}

// ---- copies and fills --------------------------------------------------------------------------

export function memset(dst: bigint, value: number, count: number, width: 1 | 2 | 4, stream: S, async: false): void;
export function memset(dst: bigint, value: number, count: number, width: 1 | 2 | 4, stream: S, async: true): Promise<void>;
export function memset(dst: bigint, value: number, count: number, width: 1 | 2 | 4, stream: S, async: boolean): void | Promise<void> {
  syncDevice();
  return native.memset(dst, value, count, width, stream, async as false);
}

export function memcpyHtod(dst: bigint, src: H, byteOffset: number, byteLength: number, pinned: P): void {
  syncDevice();
  native.memcpyHtod(dst, src, byteOffset, byteLength, pinned);
}

export function memcpyDtoh(dst: H, byteOffset: number, byteLength: number, src: bigint, pinned: P): void {
  syncDevice();
  native.memcpyDtoh(dst, byteOffset, byteLength, src, pinned);
}

export function memcpyHtodAsync(dst: bigint, src: H, byteOffset: number, byteLength: number, pinned: P,
  stream: S): Promise<void> {
  syncDevice();
  return native.memcpyHtodAsync(dst, src, byteOffset, byteLength, pinned, stream);
}

export function memcpyDtohAsync(dst: H, byteOffset: number, byteLength: number, src: bigint, pinned: P,
  stream: S): Promise<void> {
  syncDevice();
  return native.memcpyDtohAsync(dst, byteOffset, byteLength, src, pinned, stream);
}

/**
 * Copies `bytes` between devices (same device allowed), ordered after `srcStream`'s work and
 * before its later work (types/addon.d.ts `memcpyPeer`).
 */
export function memcpyPeer(dst: bigint, dstOrdinal: number, src: bigint, srcOrdinal: number, bytes: number,
  stream: S, srcStream: S): void {
  native.memcpyPeer(dst, dstOrdinal, src, srcOrdinal, bytes, stream, srcStream, false);
}

// ---- device and process facts ------------------------------------------------------------------

/** The device the calling code works on (a withDevice scope's, else the thread's). */
export const currentDevice = (): number => contextDevice(currentContext().id).ordinal;
export const deviceAttribute = (ordinal: number, attribute: number): number => native.deviceAttribute(ordinal, attribute);
export const curandTable = (which: 0 | 1 | 2): ReturnType<A['curandTable']> => native.curandTable(which);
export const driverStatus = (): NativeAddon.DriverStatus => native.driverStatus();
export const driverVersion = (): number => native.driverVersion();
export const nvrtcVersion = (): [number, number, string] => native.nvrtcVersion();
export const napiVersion = (): number => native.napiVersion;
export const memLive = (): [number, number] => native.memLive();
export const poolInfo = (): [number, number] => (syncDevice(), native.poolInfo());
export const poolTrim = (): void => (syncDevice(), native.poolTrim());
export const deviceCount = (): number => native.deviceCount();
export const deviceName = (ordinal: number): string => native.deviceName(ordinal);
export const deviceTotalMem = (ordinal: number): number => native.deviceTotalMem(ordinal);
export const supportedArchs = (): number[] => native.supportedArchs();
