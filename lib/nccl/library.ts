/**
 * Finding and opening libnccl.so.2 (src/nccl.cc opens it with dlopen, never linked): the
 * `NODECUDA_NCCL` override alone when set; else the CUDA toolkit (`$CUDA_HOME`, `$CUDA_PATH`,
 * /usr/local/cuda: lib64, lib), the loader's search path, then the Python wheel layout
 * (`nvidia/nccl/lib` under site-packages, as pip's nvidia-nccl-cu12/cu13 installs it).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { native } from '../cuda/native';
import { NcclError } from '../base/errors';

native.ncclSetErrorClass(NcclError);

/** @internal site-packages/dist-packages folders that may hold the nvidia-nccl wheel. */
export function wheelLibraryPaths(env: NodeJS.ProcessEnv = process.env): string[] {
  const roots: string[] = [];
  for (const venv of [env.VIRTUAL_ENV, env.CONDA_PREFIX]) if (venv) roots.push(path.join(venv, 'lib'));
  roots.push(path.join(os.homedir(), '.local', 'lib'), '/usr/local/lib', '/usr/lib', '/usr/local/lib64', '/usr/lib64');
  const out: string[] = [];
  for (const p of (env.PYTHONPATH ?? '').split(path.delimiter).filter(Boolean)) {
    out.push(path.join(p, 'nvidia', 'nccl', 'lib', 'libnccl.so.2'));
  }
  for (const root of roots) {
    let names: string[];
    try {
      names = fs.readdirSync(root).filter((n) => /^python3(\.\d+)?$/.test(n)).sort().reverse();
    } catch {
      continue;
    }
    for (const py of names) {
      for (const sub of ['site-packages', 'dist-packages']) {
        const lib = path.join(root, py, sub, 'nvidia', 'nccl', 'lib', 'libnccl.so.2');
        if (fs.existsSync(lib)) out.push(lib);
      }
    }
  }
  return out;
}

let status: NativeAddon.NcclStatus | undefined;

/** @internal Opens NCCL (once) and says how it went. */
export function ncclStatus(): NativeAddon.NcclStatus {
  return (status ??= native.ncclStatus(process.env.NODECUDA_NCCL ? [] : wheelLibraryPaths()));
}

/** @internal Throws NcclError NCCL_NOT_FOUND (with what to install) when NCCL cannot be opened. */
export function requireNccl(): void {
  const s = ncclStatus();
  if (!s.ok) throw new NcclError(s.message, { code: 'NCCL_NOT_FOUND', status: -1, call: 'dlopen' });
}

/**
 * True when libnccl could be opened (it says nothing about GPUs).
 * @example
 * if (nccl.isAvailable()) console.log(nccl.version());
 */
export function isAvailable(): boolean {
  return ncclStatus().ok;
}

/**
 * NCCL's version, e.g. `{ major: 2, minor: 28, patch: 9, code: 22809, path: '/usr/lib/…/libnccl.so.2' }`.
 * Throws NcclError NCCL_NOT_FOUND when NCCL is not installed.
 * @example
 * console.log(`NCCL ${nccl.version().major}.${nccl.version().minor}`);
 */
export function version(): {
  /** Major version. */
  major: number;
  /** Minor version. */
  minor: number;
  /** Patch level. */
  patch: number;
  /** ncclGetVersion's number: major × 10000 + minor × 100 + patch (major × 1000 before NCCL 2.9). */
  code: number;
  /** The libnccl.so.2 file opened. */
  path: string;
} {
  requireNccl();
  const { version: code, path: where } = ncclStatus();
  // NCCL_VERSION(X,Y,Z): X*1000+Y*100+Z before 2.9, X*10000+Y*100+Z since.
  const major = code >= 10000 ? Math.floor(code / 10000) : Math.floor(code / 1000);
  const rest = code >= 10000 ? code % 10000 : code % 1000;
  return { major, minor: Math.floor(rest / 100), patch: rest % 100, code, path: where };
}

/**
 * A new unique id (128 bytes) for one communicator: made by one rank (it also starts NCCL's
 * bootstrap listener in this process, which must stay alive until every rank has joined) and sent
 * to the others — a Uint8Array crosses `postMessage`, `structuredClone`, and any socket or file as
 * its bytes. Needs no GPU.
 * @example
 * const id = nccl.getUniqueId(); worker.postMessage({ id });
 */
export function getUniqueId(): Uint8Array {
  requireNccl();
  return new Uint8Array(native.ncclGetUniqueId());
}
