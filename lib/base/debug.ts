/**
 * NODE_DEBUG=nodecuda: one line per piece of slow first-use work (NVRTC compiles with their time,
 * disk cache hits and misses, growth of the driver's memory pool), through util.debuglog, so it
 * costs nothing unless enabled.
 */
import { debuglog } from 'util';

/** Logs when NODE_DEBUG includes 'nodecuda'; `debug.enabled` says whether it does. */
export const debug = debuglog('nodecuda');

/** The first few `__global__` function names of a CUDA source, for log lines ('k1, k2, …'). */
export function kernelNames(source: string): string {
  const names = [...source.matchAll(/__global__\s+(?:[^;{}()]*?\s)?([A-Za-z_]\w*)\s*\(/g)].map((m) => m[1]);
  if (names.length === 0) return 'a module without kernels';
  return names.slice(0, 3).join(', ') + (names.length > 3 ? `, … (${names.length} kernels)` : '');
}
