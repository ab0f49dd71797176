/**
 * cuda.diagnose() and `npx nodecuda doctor`: what this machine offers nodecuda (driver and its CUDA
 * version, GPUs, NVRTC, cuRAND, the kernel cache, the binary loaded) and which features work,
 * each checked by doing it (a compile, a launch). Never throws: every part reports its own error.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as cu from '../cuda/door';
import { availability, type Availability } from '../cuda/driver';
import { compile } from '../cuda/compiler';
import { SourceModule } from '../cuda/modules';
import { memAlloc, memcpyDtoh } from '../cuda/memory';
import { defaultDir } from '../cuda/disk_cache';
import { gl } from '../gl';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE_VERSION: string = require('../../package.json').version;

/** One GPU as the driver describes it. */
export interface DeviceDiagnosis {
  /** The CUDA device ordinal. */
  ordinal: number;
  /** The device's name (cuDeviceGetName). */
  name: string;
  /** [major, minor] */
  computeCapability: [number, number];
  /** Total device memory in bytes (cuDeviceTotalMem). */
  totalMemoryBytes: number;
}

/** A part that is there or not, with where it was found or why not. */
export interface PartDiagnosis {
  /** Whether the library was found and answered. */
  ok: boolean;
  /** The library file used, null when none was found. */
  path: string | null;
  /** e.g. '13.0'; null when unknown. */
  version: string | null;
  /** Why not (and what to install); '' when ok. */
  message: string;
}

/** A feature checked by using it. */
export interface FeatureDiagnosis {
  /** Whether it worked (false also when it was not tried). */
  ok: boolean;
  /** What was done (and how long it took), or why it failed or was not tried. */
  message: string;
}

/** What {@link diagnose} returns. */
export interface Diagnosis {
  /** nodecuda's version (its package.json). */
  nodecuda: string;
  /** The Node.js version (process.version), e.g. 'v22.11.0'. */
  node: string;
  /** e.g. 'linux-x64' */
  platform: string;
  /** The native binary in use, and each candidate tried before it with why it did not load. */
  binary: {
    /** The file the native addon was loaded from. */
    path: string;
    /** Each candidate tried before it: its path and why it did not load. */
    skipped: string[];
  };
  /** The CUDA driver: whether it works, its version, or why not (what cuda.availability() returns). */
  driver: Availability;
  /** Every GPU the driver reports; empty when the driver is not usable. */
  devices: DeviceDiagnosis[];
  /** NVRTC, the runtime compiler: its library, its version (major.minor), and the architectures it compiles for. */
  nvrtc: PartDiagnosis & {
    /** The architectures NVRTC compiles for, e.g. 'sm_90' (nvrtcGetSupportedArchs); empty when NVRTC is missing. */
    supportedArchs: string[];
  };
  /** cuRAND (libcurand): its library and version (major.minor.patch). */
  curand: PartDiagnosis;
  /** The disk cache of compiled kernels (NODECUDA_CACHE_DIR, else ~/.cache/nodecuda). */
  cache: {
    /** The cache directory. */
    dir: string;
    /** false when NODECUDA_CACHE=0 turns the cache off. */
    enabled: boolean;
    /** Whether the directory exists (the first compile creates it). */
    exists: boolean;
    /** Whether the directory, or before it exists its nearest existing parent, is writable. */
    writable: boolean;
    /** Number of files in it. */
    files: number;
    /** Their total size in bytes. */
    bytes: number;
  };
  /** Features checked by using them. */
  features: {
    /** Compiling a small kernel with NVRTC (for GPU 0's architecture, else sm_90 or the newest NVRTC supports). */
    compile: FeatureDiagnosis;
    /** Loading that kernel on device 0, launching it and reading its result back. */
    launch: FeatureDiagnosis;
    /** OpenGL interop: EGL opens and an EGL device is a working CUDA device (gl.availability().interop). */
    gl: FeatureDiagnosis;
  };
}

const message = (e: unknown): string => String((e as Error)?.message ?? e).split('\n')[0];

function devices(ok: boolean): DeviceDiagnosis[] {
  if (!ok) return [];
  const out: DeviceDiagnosis[] = [];
  try {
    for (let i = 0; i < cu.deviceCount(); i++) {
      out.push({
        ordinal: i,
        name: cu.deviceName(i),
        computeCapability: [cu.deviceAttribute(i, 75), cu.deviceAttribute(i, 76)], // CC major, minor
        totalMemoryBytes: cu.deviceTotalMem(i),
      });
    }
  } catch {
    // A device that fails to answer is left out; driver.message says why cuInit failed.
  }
  return out;
}

function nvrtc(): Diagnosis['nvrtc'] {
  try {
    const [maj, min, where] = cu.nvrtcVersion();
    const archs = cu.supportedArchs().map((a) => `sm_${a}`);
    return { ok: true, path: where, version: `${maj}.${min}`, message: '', supportedArchs: archs };
  } catch (e) {
    return { ok: false, path: null, version: null, message: message(e), supportedArchs: [] };
  }
}

function curand(): PartDiagnosis {
  try {
    const r = cu.curandTable(2); // the smallest table (scramble constants)
    if (typeof r === 'string') return { ok: false, path: null, version: null, message: r.split('\n')[0] };
    const v = r[1];
    return { ok: true, path: r[2], version: `${Math.floor(v / 1000)}.${Math.floor((v % 1000) / 100)}.${v % 100}`, message: '' };
  } catch (e) {
    return { ok: false, path: null, version: null, message: message(e) };
  }
}

/** Files and bytes under `dir` (the cache is two levels deep; a few levels are searched). */
function usage(dir: string, depth = 3): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  let entries: fs.Dirent[];
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true });
  } catch {
    return { files, bytes };
  }
  for (const e of entries) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && depth > 0) {
      const u = usage(p, depth - 1);
      files += u.files;
      bytes += u.bytes;
    } else if (e.isFile()) {
      files++;
      try {
        bytes += fs.statSync(p).size;
      } catch {
        // removed meanwhile
      }
    }
  }
  return { files, bytes };
}

function cache(): Diagnosis['cache'] {
  const dir = process.env.NODECUDA_CACHE_DIR || defaultDir();
  const enabled = process.env.NODECUDA_CACHE !== '0';
  const exists = fs.existsSync(dir);
  // Writable: the directory, or (before the first compile creates it) its nearest existing parent.
  let probe = dir;
  while (!fs.existsSync(probe) && path.dirname(probe) !== probe) probe = path.dirname(probe);
  let writable: boolean;
  try {
    fs.accessSync(probe, fs.constants.W_OK);
    writable = true;
  } catch {
    writable = false;
  }
  return { dir, enabled, exists, writable, ...usage(dir) };
}

const KERNEL = '__global__ void nodecuda_doctor(int *x) { x[0] = 42; }';

function compileFeature(nv: Diagnosis['nvrtc'], devs: DeviceDiagnosis[], dir: string): FeatureDiagnosis {
  if (!nv.ok) return { ok: false, message: `not tried: ${nv.message}` };
  const [maj, min] = devs[0]?.computeCapability ?? [0, 0];
  const own = `sm_${maj}${min}`;
  const arch = nv.supportedArchs.includes(own) ? own : nv.supportedArchs.includes('sm_90') ? 'sm_90' : nv.supportedArchs.at(-1);
  if (!arch) return { ok: false, message: 'NVRTC reports no supported architecture' };
  try {
    const t0 = performance.now();
    const { image } = compile(`${KERNEL} // ${process.pid} ${Date.now()}`, { arch, cacheDir: dir });
    const ms = performance.now() - t0;
    return { ok: true, message: `compiled a kernel for ${arch} with NVRTC in ${ms.toFixed(0)} ms (${image.length} bytes of cubin)` };
  } catch (e) {
    return { ok: false, message: message(e) };
  }
}

function launchFeature(drv: Availability, compiled: FeatureDiagnosis, dir: string): FeatureDiagnosis {
  if (!drv.ok) return { ok: false, message: `not tried: no usable GPU (${drv.code}; see driver)` };
  if (!compiled.ok) return { ok: false, message: 'not tried: compiling failed' };
  try {
    const mod = new SourceModule(KERNEL, { cacheDir: dir });
    const a = memAlloc(4);
    try {
      mod.getFunction('nodecuda_doctor')(a, { block: [1], grid: [1] });
      const out = new Int32Array(1);
      memcpyDtoh(out, a);
      if (out[0] !== 42) return { ok: false, message: `the kernel ran but wrote ${out[0]}, not 42` };
    } finally {
      a.free();
    }
    return { ok: true, message: 'loaded the kernel on device 0, launched it and read its result back' };
  } catch (e) {
    return { ok: false, message: message(e) };
  }
}

function glFeature(): FeatureDiagnosis {
  try {
    const g = gl.availability();
    if (!g.ok) return { ok: false, message: g.message.split('\n')[0] };
    return g.interop
      ? { ok: true, message: `EGL (${g.library}) with ${g.devices.length} device(s); CUDA can share GL objects` }
      : { ok: false, message: `EGL (${g.library}) opens, but no EGL device is a working CUDA device` };
  } catch (e) {
    return { ok: false, message: message(e) };
  }
}

/**
 * What this machine offers nodecuda, checked by trying each part (a compile with NVRTC, a kernel
 * launch when there is a GPU). Never throws. `npx nodecuda doctor` prints it.
 * @example
 * const d = cuda.diagnose();
 * if (!d.features.compile.ok) console.log(d.nvrtc.message);
 */
export function diagnose(): Diagnosis {
  const driver = availability();
  const devs = devices(driver.ok);
  const nv = nvrtc();
  // A private cache directory, removed after: the checks run NVRTC and leave nothing behind.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-doctor-'));
  let compiled: FeatureDiagnosis;
  let launched: FeatureDiagnosis;
  try {
    compiled = compileFeature(nv, devs, dir);
    launched = launchFeature(driver, compiled, dir);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
  return {
    nodecuda: PACKAGE_VERSION,
    node: process.version,
    platform: `${process.platform}-${process.arch}`,
    binary: { path: cu.addonPath, skipped: [...cu.addonAttempts] },
    driver,
    devices: devs,
    nvrtc: nv,
    curand: curand(),
    cache: cache(),
    features: { compile: compiled, launch: launched, gl: glFeature() },
  };
}

const mib = (b: number): string => `${(b / 2 ** 20).toFixed(1)} MiB`;

/**
 * The diagnosis as readable text (what `npx nodecuda doctor` prints).
 * @example
 * console.log(cuda.formatDiagnosis(cuda.diagnose()));
 */
export function formatDiagnosis(d: Diagnosis): string {
  const mark = (ok: boolean): string => (ok ? 'ok ' : '-- ');
  const part = (p: PartDiagnosis): string => (p.ok ? `${p.version} at ${p.path}` : p.message);
  const drv = d.driver;
  const lines = [
    `nodecuda ${d.nodecuda} on Node.js ${d.node} (${d.platform})`,
    `binary   ${d.binary.path}`,
    ...d.binary.skipped.map((s) => `         skipped ${s}`),
    `${mark(drv.ok)}driver   ${drv.ok ? `CUDA ${drv.cudaVersion} (${drv.library})` : `${drv.code}: ${drv.message}`}`,
  ];
  if (!drv.ok && drv.cudaVersion) lines.push(`         the driver supports CUDA ${drv.cudaVersion}; nodecuda needs ${drv.minCudaVersion} or newer`);
  if (d.devices.length === 0) lines.push(`-- GPUs     none`);
  for (const g of d.devices) {
    lines.push(`ok GPU ${g.ordinal}    ${g.name}, compute capability ${g.computeCapability.join('.')}, ` +
      `${(g.totalMemoryBytes / 2 ** 30).toFixed(1)} GiB`);
  }
  lines.push(
    `${mark(d.nvrtc.ok)}NVRTC    ${part(d.nvrtc)}`,
    `${mark(d.curand.ok)}cuRAND   ${part(d.curand)}`,
    `${mark(d.cache.enabled && d.cache.writable)}cache    ${d.cache.dir}: ` +
      (d.cache.enabled ? '' : 'disabled (NODECUDA_CACHE=0); ') +
      (d.cache.exists ? `${d.cache.files} files, ${mib(d.cache.bytes)}` : 'not created yet') +
      (d.cache.writable ? '' : ', NOT writable'),
    'features:',
    ...Object.entries(d.features).map(([k, f]) => `${mark(f.ok)}${k.padEnd(8)} ${f.message}`),
  );
  if (!drv.ok) lines.push('', 'Without a usable GPU nodecuda can still compile kernels (compiler.compile with { arch }).');
  return lines.join('\n');
}
