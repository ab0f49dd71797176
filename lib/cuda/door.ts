/**
 * The native door: the addon entry points that the layers above lib/cuda/ use, as plain functions.
 * Only lib/cuda/ (and lib/gl/, the GL capability's own bindings) may import `native`; eslint's
 * `no-restricted-imports` enforces it. Each function reads `native.<name>` at call time, so a test
 * that spies on `native` still sees every call, and adds one inlinable call frame (no allocation).
 */
import { native } from './native';
export { addonPath, addonAttempts } from './native';

type A = NativeAddon.Addon;
type H = NativeAddon.HostBuffer;
type P = NativeAddon.Pinned;
type S = NativeAddon.StreamHandle | null;

// ---- launches (hot path: explicit parameters, no rest/spread) ----------------------------------

/** Launches `fn` with a packed parameter buffer (types/addon.d.ts `launch`). */
export function launch(fn: NativeAddon.FunctionHandle, stream: S, config: Uint32Array, params: Uint8Array,
  paramBytes: number, queue?: boolean): void {
  native.launch(fn, stream, config, params, paramBytes, queue);
}

export function occupancyMaxActiveBlocks(fn: NativeAddon.FunctionHandle, blockSize: number, sharedBytes: number): number {
  return native.occupancyMaxActiveBlocks(fn, blockSize, sharedBytes);
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
  return native.memset(dst, value, count, width, stream, async as false);
}

export function memcpyHtod(dst: bigint, src: H, byteOffset: number, byteLength: number, pinned: P): void {
  native.memcpyHtod(dst, src, byteOffset, byteLength, pinned);
}

export function memcpyDtoh(dst: H, byteOffset: number, byteLength: number, src: bigint, pinned: P): void {
  native.memcpyDtoh(dst, byteOffset, byteLength, src, pinned);
}

export function memcpyHtodAsync(dst: bigint, src: H, byteOffset: number, byteLength: number, pinned: P,
  stream: S): Promise<void> {
  return native.memcpyHtodAsync(dst, src, byteOffset, byteLength, pinned, stream);
}

export function memcpyDtohAsync(dst: H, byteOffset: number, byteLength: number, src: bigint, pinned: P,
  stream: S): Promise<void> {
  return native.memcpyDtohAsync(dst, byteOffset, byteLength, src, pinned, stream);
}

// ---- device and process facts ------------------------------------------------------------------

export const currentDevice = (): number => native.currentDevice();
export const deviceAttribute = (ordinal: number, attribute: number): number => native.deviceAttribute(ordinal, attribute);
export const curandTable = (which: 0 | 1 | 2): ReturnType<A['curandTable']> => native.curandTable(which);
export const driverStatus = (): NativeAddon.DriverStatus => native.driverStatus();
export const driverVersion = (): number => native.driverVersion();
export const nvrtcVersion = (): [number, number, string] => native.nvrtcVersion();
export const napiVersion = (): number => native.napiVersion;
export const memLive = (): [number, number] => native.memLive();
export const poolInfo = (): [number, number] => native.poolInfo();
export const poolTrim = (): void => native.poolTrim();
export const deviceCount = (): number => native.deviceCount();
export const deviceName = (ordinal: number): string => native.deviceName(ordinal);
export const deviceTotalMem = (ordinal: number): number => native.deviceTotalMem(ordinal);
export const supportedArchs = (): number[] => native.supportedArchs();
