/**
 * The cuRAND plumbing shared by lib/curandom.ts (PyCUDA's generator classes) and random.Generator's
 * 'xorwow' / 'mrg32k3a' algorithms: curand_kernel.h lookup, the NVRTC-compiled modules of
 * lib/templates/curand.ts, C-ABI parameter packing and launches, and CurandSequence.
 */
import * as fs from 'fs';
import * as path from 'path';
import { SourceModule } from '../cuda/modules';
import { DTYPES, computeDType } from '../base/dtype';
import { describe, rangeError, typeError } from '../base/errors';
import { Stream, currentContext, streamHandle } from '../cuda/driver';
import { GPUArray } from '../array/gpuarray';
import { DeviceAllocation } from '../cuda/memory';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { assign, elementwise } from '../array/operators';
import { CURAND_STATES, CurandKind, curandKernelName, curandSource } from '../engine/templates/curand';

// ---- headers, modules and launches ----------------------------------------------------------

/**
 * @internal The toolkit include directory holding curand_kernel.h: the first of $CUDA_HOME,
 * $CUDA_PATH, /usr/local/cuda (or `roots`) with include/curand_kernel.h. Throws an Error with
 * code ERR_CURAND_HEADERS naming the directories searched when none has it.
 */
export function curandIncludeDir(roots?: readonly string[]): string {
  const list = roots ?? [process.env.CUDA_HOME, process.env.CUDA_PATH, '/usr/local/cuda'].filter((r): r is string => !!r);
  const dirs = list.map((r) => path.join(r, 'include'));
  for (const d of dirs) if (fs.existsSync(path.join(d, 'curand_kernel.h'))) return d;
  const e = new Error(`cuRAND's device headers (curand_kernel.h) were not found; searched: ${dirs.join(', ')}. ` +
    'Install the CUDA toolkit (or its cuda-curand-dev package) or set CUDA_HOME to its root.');
  (e as Error & { code: string }).code = 'ERR_CURAND_HEADERS';
  throw e;
}

/**
 * @internal Include directories for curand_kernel.h: the toolkit's include directory and, where
 * present (CUDA 13), its cccl/ directory (curand_kernel.h includes <cuda/std/type_traits>).
 */
export function curandIncludeDirs(roots?: readonly string[]): string[] {
  const dir = curandIncludeDir(roots);
  const cccl = path.join(dir, 'cccl');
  return fs.existsSync(path.join(cccl, 'cuda', 'std')) ? [dir, cccl] : [dir];
}

let includeDirs: string[] | null = null;
const modules = new Map<CurandKind, { generation: number; ctx: number; mod: SourceModule; fns: Map<string, NativeAddon.FunctionHandle> }>();

/** @internal The compiled module of `kind` for the current context (NVRTC once per process, then cached). */
export function moduleOf(kind: CurandKind): { mod: SourceModule; fns: Map<string, NativeAddon.FunctionHandle> } {
  const { generation, id } = currentContext();
  const hit = modules.get(kind);
  if (hit && hit.generation === generation && hit.ctx === id) return hit;
  includeDirs ??= curandIncludeDirs();
  const mod = new SourceModule(curandSource(kind).source, { noExternC: true, options: ['--std=c++17'], includeDirs });
  const entry = { generation, ctx: id, mod, fns: new Map<string, NativeAddon.FunctionHandle>() };
  modules.set(kind, entry);
  return entry;
}

/** @internal Kernel `what` of the module of `kind`. */
export function kernel(kind: CurandKind, what: string): NativeAddon.FunctionHandle {
  const m = moduleOf(kind);
  let fn = m.fns.get(what);
  if (!fn) {
    fn = cu.moduleFunction(m.mod.handle, curandKernelName(kind, what));
    m.fns.set(what, fn);
  }
  return fn;
}

/** @internal Launches `fn` on `blocks` × `threads` with the parameters packed in `p`. */
export function launch(fn: NativeAddon.FunctionHandle, blocks: number, threads: number, p: ArgPacker, stream?: Stream | null): void {
  p.launch(fn, streamHandle(stream), blocks, 1, 1, threads, 1, 1, 0, true);
}
// ---- argument checks --------------------------------------------------------------------------

/** @internal `a` as a live GPUArray, or a TypeError naming argument `name`. */
export function checkArray(a: unknown, name: string): GPUArray {
  if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a GPUArray. Received ${describe(a)}`);
  return a.check();
}

/** @internal An unsigned integer below 2^bits (number or bigint) as a bigint. */
export function checkUnsigned(v: unknown, name: string, bits: 32 | 64): bigint {
  if (typeof v !== 'number' && typeof v !== 'bigint') {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a number or bigint. Received ${describe(v)}`);
  }
  if (typeof v === 'number' && (!Number.isSafeInteger(v))) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" argument must be an integer. Received ${v}`);
  const b = BigInt(v);
  if (b < 0n || b >= 1n << BigInt(bits)) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" argument must be in [0, 2^${bits}). Received ${v}`);
  return b;
}

// ---- for random.Generator({ algorithm: 'xorwow' | 'mrg32k3a' }) --------------------------------

/**
 * @internal A split-invariant stream of XORWOW or MRG32k3a numbers for random.Generator: a fixed
 * 65536 generators (256 blocks of 256, so the same numbers on any GPU), generator t initialised by
 * curand_init(seed, t, 0). Value e of the stream (counted across calls, `position`) comes from
 * generator e mod 65536, so any split of a request into calls gives the same numbers as one call
 * (per distribution: uniform is curand_uniform(_double) in (0, 1] or raw curand() for uint32/int32,
 * normal is curand_normal(_double), standard).
 */
export class CurandSequence {
  static readonly BLOCKS = 256;
  static readonly THREADS = 256;
  /** Values produced so far. */
  position = 0;
  readonly algorithm: 'xorwow' | 'mrg32k3a';
  #state: DeviceAllocation;

  constructor(algorithm: 'xorwow' | 'mrg32k3a', seed: number | bigint, stream?: Stream | null) {
    if (algorithm !== 'xorwow' && algorithm !== 'mrg32k3a') {
      throw typeError('ERR_INVALID_ARG_VALUE', `algorithm must be 'xorwow' or 'mrg32k3a'. Received ${describe(algorithm)}`);
    }
    this.algorithm = algorithm;
    const s = checkUnsigned(seed, 'seed', 64);
    const n = CurandSequence.BLOCKS * CurandSequence.THREADS;
    this.#state = new DeviceAllocation(n * CURAND_STATES[algorithm].bytes, stream ?? null);
    const p = new ArgPacker(128).ptr(this.#state.ptr).u64(s).u64(0n).i64(n);
    launch(kernel(algorithm, 'init_seed'), CurandSequence.BLOCKS, CurandSequence.THREADS, p, stream);
  }

  /** Fills `a` with the next a.size values of `distribution`. */
  fill(a: GPUArray, distribution: 'uniform' | 'normal', stream?: Stream | null): void {
    const arr = checkArray(a, 'a');
    const d = arr.dtype.name;
    const gen = distribution === 'uniform' ? { float32: 'float', float64: 'double', uint32: 'uint', int32: 'uint' }[d as string]
      : distribution === 'normal' ? { float32: 'normal_float', float64: 'normal_double' }[d as string] : undefined;
    if (!gen) throw typeError('ERR_INVALID_DTYPE', `No ${String(distribution)} values for ${d} arrays`);
    const n = arr.size;
    if (n === 0) return;
    const g = CurandSequence.BLOCKS * CurandSequence.THREADS;
    const direct = arr.flags.cContiguous;
    const out = direct ? arr : GPUArray.allocate(arr.shape, arr.dtype, stream);
    try {
      const p = new ArgPacker(128).ptr(this.#state.ptr).ptr(out.ptr).i64(n).i64(this.position % g);
      launch(kernel(this.algorithm, gen), CurandSequence.BLOCKS, CurandSequence.THREADS, p, stream);
      if (!direct) assign(arr, out, stream);
    } finally {
      if (!direct) out.alloc.free(stream);
    }
    this.position += n;
  }

  /**
   * Advances the stream by `n` values as `n` single-draw values would (raw 32-bit or float32
   * uniform ones): every generator skips (skipahead) the draws it would have made.
   */
  skip(n: number, stream?: Stream | null): void {
    if (!Number.isSafeInteger(n) || n < 0) throw rangeError('ERR_OUT_OF_RANGE', `skip(n): n must be a non-negative safe integer. Received ${n}`);
    const g = CurandSequence.BLOCKS * CurandSequence.THREADS;
    const rounds = Math.floor(n / g);
    if (rounds > 0) {
      const p = new ArgPacker(128).ptr(this.#state.ptr).u64(BigInt(rounds)).i64(g);
      launch(kernel(this.algorithm, 'skip_ahead'), CurandSequence.BLOCKS, CurandSequence.THREADS, p, stream);
      this.position += rounds * g; // the same generator starts the next value
    }
    const rest = n - rounds * g;
    if (rest === 0) return;
    const tmp = GPUArray.allocate([rest], DTYPES.uint32, stream);
    try {
      this.fill(tmp, 'uniform', stream);
    } finally {
      tmp.alloc.free(stream);
    }
  }

  /** Frees the states (in the order of `stream`); idempotent. */
  dispose(stream?: Stream | null): void { this.#state.free(stream); }
}

/** random.Generator's distributions over a CurandSequence: the values drawn and the map applied. */
const MAPS = {
  uniform: { source: 'uniform', f32: 'r0 = fmaf(x0, x1, x2);', f64: 'r0 = fma(x0, x1, x2);' },
  normal: { source: 'normal', f32: 'r0 = fmaf(x0, x1, x2);', f64: 'r0 = fma(x0, x1, x2);' },
  lognormal: { source: 'normal', f32: 'r0 = expf(fmaf(x0, x1, x2));', f64: 'r0 = exp(fma(x0, x1, x2));' },
  exponential: { source: 'uniform', f32: 'r0 = (0.0f - logf(x0)) * x1;', f64: 'r0 = (0.0 - log(x0)) * x1;' },
} as const;

/**
 * @internal Fills `a` (float16/bfloat16/32/64, any layout, not empty) with `dist` from `seq`, first skipping
 * `seq` forward to `position` (random.Generator's skipAhead/setState): uniform pa + u·pb (low,
 * span; u in (0, 1]), normal pa + z·pb (mean, std), lognormal exp of that, exponential
 * (0 − log u)·pa (scale). Computed in float for float16/bfloat16/float32 (those two drawn as float32 into a
 * temporary), double for float64; one map kernel, none for the standard uniform/normal.
 */
export function fillFromSequence(seq: CurandSequence, position: number, dist: keyof typeof MAPS, a: GPUArray,
  pa: number, pb: number, stream?: Stream | null): void {
  if (seq.position < position) seq.skip(position - seq.position, stream);
  const m = MAPS[dist];
  const d = a.dtype;
  const gen = computeDType(d);
  const body = gen.name === 'float64' ? m.f64 : m.f32;
  const scalars = dist === 'exponential' ? [{ value: pa }] : [{ value: pb }, { value: pa }];
  const computes = [gen, ...scalars.map(() => gen)];
  if (a.flags.cContiguous && gen === d) {
    seq.fill(a, m.source, stream);
    if ((dist === 'uniform' || dist === 'normal') && pa === 0 && pb === 1) return;
    elementwise(`random_${dist}`, body, [{ arr: a }, ...scalars], computes, gen, d, { out: a, stream });
    return;
  }
  const tmp = GPUArray.allocate(a.shape, gen, stream);
  try {
    seq.fill(tmp, m.source, stream);
    elementwise(`random_${dist}`, body, [{ arr: tmp }, ...scalars], computes, gen, d, { out: a, stream });
  } finally {
    tmp.alloc.free(stream);
  }
}
