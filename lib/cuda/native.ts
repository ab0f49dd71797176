/// <reference path="../../types/addon.d.ts" preserve="true" />
/**
 * Loads the native addon. Loading never touches CUDA: libcuda and NVRTC are opened on first use,
 * so this succeeds on machines with no driver and no toolkit.
 *
 * Where the addon is looked for, in order:
 * 1. `NODECUDA_BINARY` (or its older name `NODECUDA_ADDON`): when set, only that file is tried;
 * 2. the platform package, e.g. `@nodecuda/linux-x64-gnu` (an optional dependency: npm installs
 *    only the one whose `os`/`cpu`/`libc` match this machine);
 * 3. `build/Release/nodecuda.node`, then `build/Debug/nodecuda.node` (built from source:
 *    `npx nodecuda-build` in a project, `npm run build` in a clone);
 * 4. `prebuilds/<platform>-<arch>/nodecuda.node`, where an older package or a user put one.
 */
import * as fs from 'fs';
import * as path from 'path';
import { isMainThread } from 'worker_threads';
import { CudaError, NvrtcError } from '../base/errors';

/** The package root: lib/ under ts-jest, dist/ when built; both sit one level below it. */
const ROOT = path.join(__dirname, '..', '..');

/** Platforms with a published binary package (npm/<name>/ in the repository). */
const PLATFORM_PACKAGES = ['linux-x64-gnu', 'linux-arm64-gnu'];

/** @internal The platform package this machine would use, e.g. '@nodecuda/linux-x64-gnu'. */
export function platformPackage(platform: string = process.platform, arch: string = process.arch): string {
  // musl systems get the same name; npm's `libc` field keeps the glibc package off them, and
  // the load error says why (see describeSystem).
  return `@nodecuda/${platform}-${arch}${platform === 'linux' ? '-gnu' : ''}`;
}

/**
 * @internal The paths the loader tries, in order: the environment override alone when it is
 * set, else the platform package (its resolved file, or its bare specifier when it is not
 * installed), the source builds, and prebuilds/.
 */
export function addonCandidates(
  env: NodeJS.ProcessEnv = process.env,
  root = ROOT,
  resolve: (spec: string) => string = (spec) => require.resolve(spec, { paths: [root] }),
): string[] {
  const override = env.NODECUDA_BINARY || env.NODECUDA_ADDON;
  if (override) return [path.resolve(override)];
  const spec = `${platformPackage()}/nodecuda.node`;
  let platformFile = spec;
  try {
    platformFile = resolve(spec);
  } catch {
    // Not installed: reported by load() with the reasons npm may have skipped it.
  }
  return [
    platformFile,
    path.join(root, 'build', 'Release', 'nodecuda.node'),
    path.join(root, 'build', 'Debug', 'nodecuda.node'),
    path.join(root, 'prebuilds', `${process.platform}-${process.arch}`, 'nodecuda.node'),
  ];
}

/** glibc's version on Linux, or null (musl, other systems). */
function glibcVersion(): string | null {
  if (process.platform !== 'linux') return null;
  try {
    const header = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header;
    return header?.glibcVersionRuntime ?? null;
  } catch {
    return null;
  }
}

/** @internal One paragraph on why the platform package does not apply here, or ''. */
export function describeSystem(platform = process.platform, arch = process.arch, glibc = glibcVersion()): string {
  const name = platformPackage(platform, arch).slice('@nodecuda/'.length);
  if (!PLATFORM_PACKAGES.includes(name)) {
    return `No prebuilt binary is published for ${platform}-${arch} (only ${PLATFORM_PACKAGES.join(', ')}). `;
  }
  if (!glibc) return `This system's C library is not glibc (musl?); the prebuilt binaries need glibc >= 2.28. `;
  const [maj, min] = glibc.split('.').map(Number);
  if (maj < 2 || (maj === 2 && min < 28)) return `This system has glibc ${glibc}; the prebuilt binaries need glibc >= 2.28. `;
  return '';
}

function load(): { addon: NativeAddon.Addon; path: string; tried: string[] } {
  const candidates = addonCandidates();
  const tried: string[] = [];
  for (const p of candidates) {
    if (!path.isAbsolute(p)) {
      tried.push(`  ${path.dirname(p)}: not installed`);
      continue;
    }
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
  const pkg = platformPackage();
  const err = new Error(
    candidates.length === 1
      ? `nodecuda: the native addon set by ${override} could not be loaded. Tried:\n${tried.join('\n')}\n` +
        `Unset ${override} to use the installed binary, or point it at a built nodecuda.node.`
      : `nodecuda: the native addon could not be loaded. Tried:\n${tried.join('\n')}\n` +
        describeSystem() +
        `npm installs the prebuilt binary as ${pkg}, an optional dependency: reinstall without ` +
        '--omit=optional / --no-optional (and with a lockfile made on a Linux machine) to get it. ' +
        'Or build from source with "npx nodecuda-build" in your project ("npm run build" in a clone of ' +
        'the repository); that needs CMake >= 3.18, a C++17 compiler and the CUDA toolkit headers cuda.h ' +
        'and nvrtc.h (set CUDA_HOME if the toolkit is not in /usr/local/cuda). Or set NODECUDA_BINARY ' +
        'to the path of a built nodecuda.node.',
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
