/// <reference path="../../types/addon.d.ts" preserve="true" />
/**
 * Loads the native addon. Loading never touches CUDA: libcuda and NVRTC are opened on first use,
 * so this succeeds on machines with no driver and no toolkit.
 *
 * Where the addon is looked for, in order:
 * 1. `NODECUDA_BINARY` (or its older name `NODECUDA_ADDON`): when set, only that file is tried;
 * 2. `build/Release/nodecuda.node`, then `build/Debug/nodecuda.node` (built from source);
 * 3. `prebuilds/<platform>-<arch>/nodecuda.node` (shipped in the npm package).
 */
import * as fs from 'fs';
import * as path from 'path';
import { isMainThread } from 'worker_threads';
import { CudaError, NvrtcError } from '../base/errors';

/** The package root: lib/ under ts-jest, dist/ when built; both sit one level below it. */
const ROOT = path.join(__dirname, '..', '..');

/**
 * @internal The paths the loader tries, in order: the environment override alone when it is
 * set, else the source builds and then this platform's prebuilt binary.
 */
export function addonCandidates(env: NodeJS.ProcessEnv = process.env, root = ROOT): string[] {
  const override = env.NODECUDA_BINARY || env.NODECUDA_ADDON;
  if (override) return [path.resolve(override)];
  return [
    path.join(root, 'build', 'Release', 'nodecuda.node'),
    path.join(root, 'build', 'Debug', 'nodecuda.node'),
    path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'nodecuda.node'),
  ];
}

function load(): { addon: NativeAddon.Addon; path: string; tried: string[] } {
  const candidates = addonCandidates();
  const tried: string[] = [];
  for (const p of candidates) {
    if (!fs.existsSync(p)) {
      tried.push(`  ${p}: not found`);
      continue;
    }
    try {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const addon = require(p) as NativeAddon.Addon;
      addon.init(CudaError, NvrtcError, TypeError, RangeError, !isMainThread);
      return { addon, path: p, tried };
    } catch (e) {
      tried.push(`  ${p}: ${String((e as Error)?.message ?? e).split('\n')[0]}`);
    }
  }
  const override = process.env.NODECUDA_BINARY ? 'NODECUDA_BINARY' : 'NODECUDA_ADDON';
  const err = new Error(
    `nodecuda: the native addon could not be loaded` +
      (candidates.length === 1 ? ` (from ${override})` : ` (no prebuilt binary for ${process.platform}-${process.arch} loaded)`) +
      `. Tried:\n${tried.join('\n')}\n` +
      'Build it from source with "npm run build" in the package directory (needs CMake, a C++17 compiler and ' +
      'the CUDA toolkit headers cuda.h and nvrtc.h; set CUDA_HOME if the toolkit is not in /usr/local/cuda), ' +
      'or set NODECUDA_BINARY to the path of a built nodecuda.node.',
  );
  (err as Error & { code: string; tried: string[] }).code = 'ERR_NODECUDA_ADDON_MISSING';
  (err as Error & { code: string; tried: string[] }).tried = candidates;
  throw err;
}

const loaded = load();

/** The addon's exports. */
export const native: NativeAddon.Addon = loaded.addon;

/** @internal The file the addon in use was loaded from. */
export const addonPath: string = loaded.path;
/** @internal The candidates tried before it, each with why it did not load (cuda.diagnose()). */
export const addonAttempts: readonly string[] = loaded.tried.map((t) => t.trim());
