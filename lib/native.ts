/// <reference path="../types/addon.d.ts" preserve="true" />
/**
 * Loads the native addon. Loading never touches CUDA: libcuda and NVRTC are opened on first use,
 * so this succeeds on machines with no driver and no toolkit.
 */
import * as path from 'path';
import { CudaError, NvrtcError } from './errors';

function load(): NativeAddon.Addon {
  const candidates = [
    process.env.NODECUDA_ADDON,
    path.join(__dirname, '..', 'build', 'Release', 'nodecuda.node'),
    path.join(__dirname, '..', 'build', 'Debug', 'nodecuda.node'),
  ].filter((p): p is string => !!p);
  let lastError: unknown;
  for (const p of candidates) {
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const addon = require(p) as NativeAddon.Addon;
      addon.init(CudaError, NvrtcError, TypeError, RangeError);
      return addon;
    } catch (e) {
      lastError = e;
      if ((e as { code?: string }).code !== 'MODULE_NOT_FOUND') break;
    }
  }
  const err = new Error(
    `nodecuda: the native addon is not built (looked for ${candidates.join(', ')}). ` +
      `Run "npm run build" (needs the CUDA toolkit headers and CMake). Cause: ${String(lastError)}`,
  );
  (err as Error & { code: string }).code = 'ERR_NODECUDA_ADDON_MISSING';
  throw err;
}

/** The addon's exports. */
export const native: NativeAddon.Addon = load();
