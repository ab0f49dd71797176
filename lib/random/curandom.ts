/**
 * PyCUDA's cuRAND generators (pycuda.curandom): XORWOW, MRG32k3a, Sobol32 and scrambled Sobol32,
 * through cuRAND's device API (curand_kernel.h compiled with NVRTC), so every number is the one
 * cuRAND gives for the same seed, subsequence and offset. One curandState per generator thread:
 * `blockCount` blocks of `generatorsPerBlock` threads, generator i initialised by
 * curand_init(seed[i], i, offset) (pseudo-random) or with direction vectors i mod 20000 (Sobol).
 * A fill writes element i from generator i mod generatorCount, as PyCUDA does.
 */
import { randomInt } from 'crypto';
import { DEVICE_ATTRIBUTES, FUNCTION_ATTRIBUTES } from '../cuda/attributes';
import { ArgPacker } from '../cuda/args';
import { checkArray, checkUnsigned, kernel, launch, moduleOf } from './curand_sequence';
import { DTypeLike, dtype as toDType } from '../base/dtype';
import { checkSize, checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream, currentContext, streamHandle } from '../cuda/driver';
import { GPUArray } from '../array/gpuarray';
import { DeviceAllocation, useOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { assign } from '../array/operators';
import { checkWritable } from '../array/overlap';
import { normalizeShape } from '../base/shape';
import { CURAND_STATES, CurandKind, curandSource } from '../engine/templates/curand';

// The headers, modules, launches and CurandSequence (random.Generator's xorwow/mrg32k3a) live in
// lib/curand_sequence.ts (internal: not re-exported, so the published declarations stay whole).

// ---- argument checks --------------------------------------------------------------------------

function checkReal(v: unknown, name: string, min = -Infinity): number {
  if (typeof v !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a number. Received ${describe(v)}`);
  if (!Number.isFinite(v) || v < min) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" argument must be a finite number >= ${min}. Received ${v}`);
  return v;
}

function checkGeneratorArray(a: unknown, name: string, dtypes: string[], shape: number[]): GPUArray {
  const arr = checkArray(a, name);
  if (!dtypes.includes(arr.dtype.name) || arr.size !== shape.reduce((x, y) => x * y, 1) || !arr.flags.cContiguous ||
    (shape.length > 1 && (arr.ndim !== 2 || arr.shape[0] !== shape[0] || arr.shape[1] !== shape[1]))) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a contiguous ${dtypes.join('/')} GPUArray of shape ` +
      `[${shape.join(', ')}]. Received ${arr.dtype.name} [${arr.shape.join(', ')}]`);
  }
  return arr;
}

// ---- seeds and direction vectors ----------------------------------------------------------------

/**
 * `n` int32 seeds all equal to one random value (pycuda.curandom.seed_getter_uniform).
 * @example
 * const gen = new random.XORWOWRandomNumberGenerator(random.seedGetterUniform);
 */
export function seedGetterUniform(n: number): GPUArray {
  checkSize(n, 'n', 2 ** 31 - 1);
  const a = GPUArray.allocate([n], toDType('int32'));
  cu.memset(a.ptr, randomInt(0, 2 ** 31 - 1), n, 4, null, false);
  return a;
}

/**
 * `n` independent random int32 seeds in [0, 2^31 - 1) (pycuda.curandom.seed_getter_unique).
 * @example
 * const gen = new random.MRG32k3aRandomNumberGenerator(random.seedGetterUnique);
 */
export function seedGetterUnique(n: number): GPUArray {
  checkSize(n, 'n', 2 ** 31 - 1);
  const h = new Int32Array(n);
  for (let i = 0; i < n; i++) h[i] = randomInt(0, 2 ** 31 - 1);
  const a = GPUArray.allocate([n], toDType('int32'));
  cu.memcpyHtod(a.ptr, h.buffer, 0, h.byteLength, false);
  return a;
}

const tables = new Map<number, Uint32Array>();

/**
 * @internal cuRAND's Sobol32 table read from libcurand (dlopen): 0 = direction vectors (20000 × 32,
 * CURAND_DIRECTION_VECTORS_32_JOEKUO6), 1 = scrambled direction vectors, 2 = scramble constants
 * (20000). Needs no GPU. Throws an Error with code ERR_CURAND_NOT_FOUND without libcurand.
 */
export function curandTable(which: 0 | 1 | 2): Uint32Array {
  let t = tables.get(which);
  if (!t) {
    const r = cu.curandTable(which);
    if (typeof r === 'string') {
      const e = new Error(r);
      (e as Error & { code: string }).code = 'ERR_CURAND_NOT_FOUND';
      throw e;
    }
    t = new Uint32Array(r[0]);
    tables.set(which, t);
  }
  return t;
}

/**
 * @internal Rows for `count` generators, row i being dimension i mod 20000 of the table (32 words
 * per row for direction vectors, one for scramble constants), as a host Uint32Array.
 */
export function sobolRows(count: number, which: 0 | 1 | 2): Uint32Array {
  const t = curandTable(which);
  const w = which === 2 ? 1 : 32;
  const rows = t.length / w;
  const out = new Uint32Array(count * w);
  for (let i = 0; i < count; i += rows) out.set(t.subarray(0, Math.min(rows, count - i) * w), i * w);
  return out;
}

function upload(h: Uint32Array, shape: number[]): GPUArray {
  const a = GPUArray.allocate(shape, toDType('uint32'));
  cu.memcpyHtod(a.ptr, h.buffer, h.byteOffset, h.byteLength, false);
  return a;
}

/**
 * Direction vectors for `count` Sobol32 generators: a uint32 GPUArray [count, 32], row i being
 * cuRAND's dimension i mod 20000 (pycuda.curandom.generate_direction_vectors).
 * @example
 * const v = random.generateDirectionVectors32(gen.generatorCount);
 */
export function generateDirectionVectors32(count: number, scrambled = false): GPUArray {
  checkSize(count, 'count', 2 ** 26);
  return upload(sobolRows(count, scrambled ? 1 : 0), [count, 32]);
}

/**
 * cuRAND's scramble constants for `count` scrambled Sobol32 generators (uint32 [count]).
 * @example
 * const c = random.generateScrambleConstants32(1024);
 */
export function generateScrambleConstants32(count: number): GPUArray {
  checkSize(count, 'count', 2 ** 28);
  return upload(sobolRows(count, 2), [count]);
}

// ---- the generators ---------------------------------------------------------------------------

/** Launch shape of a generator (default: PyCUDA's, from the device and the kernels). */
export interface GeneratorLayout {
  /** Threads (generators) per block; default the smallest maxThreadsPerBlock of the kernels. */
  generatorsPerBlock?: number;
  /** Blocks; default the multiprocessor count. */
  blockCount?: number;
}

/** Options of the fill and gen methods. */
export interface CurandOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** The stream of a method's options: `stream` is the only option (any other name is a TypeError, not ignored). */
function streamOf(opts: CurandOptions | undefined, what: string): Stream | null | undefined {
  return checkedOptions(opts, `${what}()`, ['stream']).stream;
}

abstract class CurandGenerator {
  /** Threads (generators) per block. */
  readonly generatorsPerBlock: number;
  /** Blocks per launch. */
  readonly blockCount: number;
  /** @internal */
  protected readonly kind: CurandKind;
  #state: DeviceAllocation | null;
  #context: number;

  /** @internal */
  constructor(kind: CurandKind, layout: GeneratorLayout | undefined) {
    this.kind = kind;
    const m = moduleOf(kind);
    let maxThreads = 1024;
    for (const name of curandSource(kind).names) {
      const fn = cu.moduleFunction(m.mod.handle, name);
      maxThreads = Math.min(maxThreads, cu.funcAttribute(fn, FUNCTION_ATTRIBUTES.MAX_THREADS_PER_BLOCK));
    }
    const sms = cu.deviceAttribute(cu.currentDevice(), DEVICE_ATTRIBUTES.MULTIPROCESSOR_COUNT);
    if (layout !== undefined && (layout === null || typeof layout !== 'object')) {
      throw typeError('ERR_INVALID_ARG_TYPE', `The layout options must be an object. Received ${describe(layout)}`);
    }
    this.generatorsPerBlock = layout?.generatorsPerBlock === undefined
      ? maxThreads : checkCount(layout.generatorsPerBlock, 'generatorsPerBlock', maxThreads);
    this.blockCount = layout?.blockCount === undefined ? sms : checkCount(layout.blockCount, 'blockCount', 2 ** 31 - 1);
    this.#context = currentContext().id;
    this.#state = new DeviceAllocation(this.generatorCount * CURAND_STATES[kind].bytes);
  }

  /** Generators in all: generatorsPerBlock × blockCount. */
  get generatorCount(): number { return this.generatorsPerBlock * this.blockCount; }

  /** The device memory holding the generator states. */
  get state(): DeviceAllocation {
    if (!this.#state || this.#state.freed) throw typeError('ERR_USE_AFTER_DISPOSE', 'This generator was disposed');
    return this.#state;
  }

  /** @internal Launches `what` over all generators with the state pointer first. */
  protected run(what: string, p: ArgPacker, stream?: Stream | null): void {
    useOn(this.#state, streamHandle(stream)); // the states: their free waits for this (memory.ts)
    launch(kernel(this.kind, what), this.blockCount, this.generatorsPerBlock, p, stream);
  }

  /** @internal Parameters beginning with the state pointer. */
  protected params(): ArgPacker { return new ArgPacker(128).ptr(this.state.ptr); }

  #target(a: unknown, name: string): GPUArray {
    const arr = checkArray(a, name);
    if (arr.context !== this.#context) throw typeError('ERR_CONTEXT_MISMATCH', 'The array belongs to another context than the generator');
    checkWritable(arr, `curandom fill of "${name}"`); // before the generator's state moves
    return arr;
  }

  /**
   * Runs fill kernel `gen` into `a` (pairs: `gen2` when the size is even, as PyCUDA), through a
   * contiguous temporary when `a` is not contiguous or not aligned for the pair type.
   */
  #fill(a: GPUArray, gen: string, pair: boolean, scalars: (p: ArgPacker) => void, stream?: Stream | null): void {
    const n = a.size;
    if (n === 0) return;
    const usePairs = pair && CURAND_STATES[this.kind].pseudo && n % 2 === 0;
    const direct = a.flags.cContiguous && (!usePairs || a.align16 % (2 * a.dtype.bytes) === 0);
    const out = direct ? a : GPUArray.allocate(a.shape, a.dtype, stream);
    try {
      const p = this.params().ptr(out.ptr);
      scalars(p);
      p.i64(usePairs ? n / 2 : n).i64(0);
      this.run(usePairs ? `${gen}2` : gen, p, stream);
      if (!direct) assign(a, out, stream);
    } finally {
      if (!direct) out.alloc.free(stream); // in the order of `stream`
    }
  }

  /**
   * Fills `a` with uniform numbers in (0, 1] (float32: curand_uniform, float64:
   * curand_uniform_double) or raw 32-bit integers (int32/uint32: curand).
   * @example
   * gen.fillUniform(a);
   */
  fillUniform(a: GPUArray, opts: CurandOptions = {}): void {
    const arr = this.#target(a, 'a');
    const gen = { float32: 'float', float64: 'double', int32: 'uint', uint32: 'uint' }[arr.dtype.name as string];
    if (!gen) throw typeError('ERR_INVALID_DTYPE', `fillUniform() takes float32, float64, int32 or uint32 arrays. Received ${arr.dtype.name}`);
    this.#fill(arr, gen, false, () => undefined, streamOf(opts, 'fillUniform'));
  }

  /**
   * Fills `a` (float32/float64) with standard normal numbers (curand_normal, or curand_normal2 in
   * pairs when the size is even, as PyCUDA).
   * @example
   * gen.fillNormal(a);
   */
  fillNormal(a: GPUArray, opts: CurandOptions = {}): void {
    const arr = this.#target(a, 'a');
    this.#fill(arr, `normal_${floatName(arr, 'fillNormal')}`, true, () => undefined, streamOf(opts, 'fillNormal'));
  }

  /**
   * Fills `a` (float32/float64) with log-normal numbers: exp of normal(mean, std).
   * @example
   * gen.fillLogNormal(a, 0, 0.5);
   */
  fillLogNormal(a: GPUArray, mean = 0, std = 1, opts: CurandOptions = {}): void {
    const arr = this.#target(a, 'a');
    const f = floatName(arr, 'fillLogNormal');
    checkReal(mean, 'mean');
    checkReal(std, 'std', 0);
    const stream = streamOf(opts, 'fillLogNormal');
    this.#fill(arr, `log_${f}`, true, (p) => (f === 'float' ? p.f32(mean).f32(std) : p.f64(mean).f64(std)), stream);
  }

  /**
   * Fills `a` (uint32 or int32) with Poisson counts of mean `lambda` (curand_poisson).
   * @example
   * gen.fillPoisson(counts, 4);
   */
  fillPoisson(a: GPUArray, lambda: number, opts: CurandOptions = {}): void {
    const arr = this.#target(a, 'a');
    if (arr.dtype.name !== 'uint32' && arr.dtype.name !== 'int32') {
      throw typeError('ERR_INVALID_DTYPE', `fillPoisson() takes uint32 or int32 arrays. Received ${arr.dtype.name}`);
    }
    checkReal(lambda, 'lambda', 0);
    this.#fill(arr, 'poisson', false, (p) => p.f64(lambda), streamOf(opts, 'fillPoisson'));
  }

  /**
   * A new array of uniform numbers (see fillUniform).
   * @example
   * const u = gen.genUniform([1000], 'float32');
   */
  genUniform(shape: number | readonly number[], dtype: DTypeLike = 'float32', opts: CurandOptions = {}): GPUArray {
    return this.#gen(shape, dtype, opts, 'genUniform', (a) => this.fillUniform(a, opts));
  }

  /**
   * A new array of standard normal numbers (see fillNormal).
   * @example
   * const z = gen.genNormal([1000], 'float64');
   */
  genNormal(shape: number | readonly number[], dtype: DTypeLike = 'float32', opts: CurandOptions = {}): GPUArray {
    return this.#gen(shape, dtype, opts, 'genNormal', (a) => this.fillNormal(a, opts));
  }

  /**
   * A new array of log-normal numbers (see fillLogNormal).
   * @example
   * const x = gen.genLogNormal([1000], 'float32', 0, 1);
   */
  genLogNormal(shape: number | readonly number[], dtype: DTypeLike = 'float32', mean = 0, std = 1, opts: CurandOptions = {}): GPUArray {
    return this.#gen(shape, dtype, opts, 'genLogNormal', (a) => this.fillLogNormal(a, mean, std, opts));
  }

  /**
   * A new array of Poisson counts (see fillPoisson).
   * @example
   * const k = gen.genPoisson([1000], 'uint32', 4);
   */
  genPoisson(shape: number | readonly number[], dtype: DTypeLike = 'uint32', lambda = 1, opts: CurandOptions = {}): GPUArray {
    return this.#gen(shape, dtype, opts, 'genPoisson', (a) => this.fillPoisson(a, lambda, opts));
  }

  #gen(shape: number | readonly number[], dtype: DTypeLike, opts: CurandOptions, what: string, fill: (a: GPUArray) => void): GPUArray {
    const a = GPUArray.allocate(normalizeShape(shape), toDType(dtype), streamOf(opts, what)); // options checked before allocating
    try {
      fill(a);
    } catch (e) {
      a.dispose();
      throw e;
    }
    return a;
  }

  /** @internal Skip kernels: a scalar count or one count per generator. */
  protected skip(what: string, i: unknown, bits: 32 | 64, stream?: Stream | null): void {
    const p = this.params();
    if (bits === 64) p.u64(checkUnsigned(i, 'i', 64)); else p.u32(Number(checkUnsigned(i, 'i', 32)));
    this.run(what, p.i64(this.generatorCount), stream);
  }

  /** @internal */
  protected skipArray(what: string, arr: unknown, bits: 32 | 64, stream?: Stream | null): void {
    const a = checkGeneratorArray(arr, 'arr', bits === 64 ? ['uint64', 'int64'] : ['uint32', 'int32'], [this.generatorCount]);
    this.run(what, this.params().ptr(a.ptr).i64(this.generatorCount), stream);
  }

  /**
   * Frees the generator states now; idempotent.
   * @example
   * gen.dispose();
   */
  dispose(): void {
    this.#state?.free();
    this.#state = null;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void { this.dispose(); }
}

function checkCount(v: unknown, name: string, max: number): number {
  if (typeof v !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" option must be a number. Received ${describe(v)}`);
  if (!Number.isInteger(v) || v < 1 || v > max) throw rangeError('ERR_OUT_OF_RANGE', `The "${name}" option must be an integer in [1, ${max}]. Received ${v}`);
  return v;
}

function floatName(a: GPUArray, fn: string): 'float' | 'double' {
  if (a.dtype.name === 'float32') return 'float';
  if (a.dtype.name === 'float64') return 'double';
  throw typeError('ERR_INVALID_DTYPE', `${fn}() takes float32 or float64 arrays. Received ${a.dtype.name}`);
}

/** A function that, given a count, returns that many int32 seeds as a GPUArray. */
export type SeedGetter = (n: number) => GPUArray;

abstract class PseudoRandomGenerator extends CurandGenerator {
  /** @internal */
  constructor(kind: 'xorwow' | 'mrg32k3a', seedGetter: SeedGetter | undefined, offset: number | bigint, layout?: GeneratorLayout) {
    super(kind, layout);
    let off: bigint;
    try {
      off = checkUnsigned(offset, 'offset', 64);
    } catch (e) {
      this.dispose();
      throw e;
    }
    const n = this.generatorCount;
    let seeds: GPUArray;
    if (seedGetter === undefined || seedGetter === null) {
      const h = new Int32Array(n);
      for (let i = 0; i < n; i++) h[i] = randomInt(0, 2 ** 31 - 1);
      seeds = GPUArray.allocate([n], toDType('int32'));
      cu.memcpyHtod(seeds.ptr, h.buffer, 0, h.byteLength, false);
    } else {
      if (typeof seedGetter !== 'function') {
        this.dispose();
        throw typeError('ERR_INVALID_ARG_TYPE', `The "seedGetter" argument must be a function. Received ${describe(seedGetter)}`);
      }
      seeds = seedGetter(n);
    }
    try {
      checkGeneratorArray(seeds, 'seed', ['int32', 'uint32'], [n]);
      this.run('init', this.params().ptr(seeds.ptr).u64(off).i64(n));
    } catch (e) {
      this.dispose();
      throw e;
    } finally {
      // Our own seeds are freed in stream order after the init kernel; a getter's array is its own.
      if (seedGetter === undefined || seedGetter === null) seeds.dispose();
    }
  }

  /**
   * Advances every generator by `i` draws (skipahead).
   * @example
   * gen.callSkipAhead(1000);
   */
  callSkipAhead(i: number | bigint, opts: CurandOptions = {}): void {
    this.skip('skip_ahead', i, 64, streamOf(opts, 'callSkipAhead'));
  }

  /**
   * Advances generator k by `arr[k]` draws (uint64 GPUArray of generatorCount).
   * @example
   * gen.callSkipAheadArray(gpuarray.full([gen.generatorCount], 5n, 'uint64'));
   */
  callSkipAheadArray(arr: GPUArray, opts: CurandOptions = {}): void {
    this.skipArray('skip_ahead_array', arr, 64, streamOf(opts, 'callSkipAheadArray'));
  }

  /**
   * Advances every generator by `i` subsequences of 2^67 draws (skipahead_sequence).
   * @example
   * gen.callSkipAheadSequence(1);
   */
  callSkipAheadSequence(i: number | bigint, opts: CurandOptions = {}): void {
    this.skip('skip_ahead_sequence', i, 64, streamOf(opts, 'callSkipAheadSequence'));
  }

  /**
   * Advances generator k by `arr[k]` subsequences (uint64 GPUArray of generatorCount).
   * @example
   * gen.callSkipAheadSequenceArray(counts);
   */
  callSkipAheadSequenceArray(arr: GPUArray, opts: CurandOptions = {}): void {
    this.skipArray('skip_ahead_sequence_array', arr, 64, streamOf(opts, 'callSkipAheadSequenceArray'));
  }
}

/**
 * cuRAND's XORWOW generator, one state per generator thread (pycuda.curandom.XORWOWRandomNumberGenerator).
 * @example
 * const gen = new random.XORWOWRandomNumberGenerator(random.seedGetterUnique);
 * const u = gen.genUniform([1 << 20], 'float32'); gen.fillNormal(u);
 */
export class XORWOWRandomNumberGenerator extends PseudoRandomGenerator {
  constructor(seedGetter?: SeedGetter, offset: number | bigint = 0, layout?: GeneratorLayout) {
    super('xorwow', seedGetter, offset, layout);
  }
}

/**
 * cuRAND's MRG32k3a generator (pycuda.curandom.MRG32k3aRandomNumberGenerator).
 * @example
 * const gen = new random.MRG32k3aRandomNumberGenerator();
 * const z = gen.genNormal([1000], 'float64');
 */
export class MRG32k3aRandomNumberGenerator extends PseudoRandomGenerator {
  constructor(seedGetter?: SeedGetter, offset: number | bigint = 0, layout?: GeneratorLayout) {
    super('mrg32k3a', seedGetter, offset, layout);
  }

  /**
   * Advances every generator by `i` subsequences of 2^76 draws (skipahead_subsequence).
   * @example
   * gen.callSkipAheadSubsequence(1);
   */
  callSkipAheadSubsequence(i: number | bigint, opts: CurandOptions = {}): void {
    this.skip('skip_ahead_subsequence', i, 64, streamOf(opts, 'callSkipAheadSubsequence'));
  }

  /**
   * Advances generator k by `arr[k]` subsequences (uint64 GPUArray of generatorCount).
   * @example
   * gen.callSkipAheadSubsequenceArray(counts);
   */
  callSkipAheadSubsequenceArray(arr: GPUArray, opts: CurandOptions = {}): void {
    this.skipArray('skip_ahead_subsequence_array', arr, 64, streamOf(opts, 'callSkipAheadSubsequenceArray'));
  }
}

abstract class SobolGenerator extends CurandGenerator {
  /** @internal */
  constructor(kind: 'sobol32' | 'scrambledSobol32', dirVectors: GPUArray | undefined, scramble: GPUArray | undefined,
    offset: number | bigint, layout: GeneratorLayout | undefined) {
    super(kind, layout);
    const n = this.generatorCount;
    const scrambled = kind === 'scrambledSobol32';
    const owned: GPUArray[] = [];
    try {
      const off = Number(checkUnsigned(offset, 'offset', 32));
      const v = dirVectors ?? (owned[owned.length] = generateDirectionVectors32(n, scrambled));
      checkGeneratorArray(v, 'dirVectors', ['uint32', 'int32'], [n, 32]);
      const p = this.params().ptr(v.ptr);
      if (scrambled) {
        const c = scramble ?? (owned[owned.length] = generateScrambleConstants32(n));
        checkGeneratorArray(c, 'scrambleVector', ['uint32', 'int32'], [n]);
        p.ptr(c.ptr);
      }
      this.run('init', p.u32(off).i64(n));
    } catch (e) {
      this.dispose();
      throw e;
    } finally {
      for (const a of owned) a.dispose();
    }
  }

  /**
   * Advances every generator by `i` points (i < 2^32).
   * @example
   * gen.callSkipAhead(1024);
   */
  callSkipAhead(i: number, opts: CurandOptions = {}): void {
    this.skip('skip_ahead', i, 32, streamOf(opts, 'callSkipAhead'));
  }

  /**
   * Advances generator k by `arr[k]` points (uint32 GPUArray of generatorCount).
   * @example
   * gen.callSkipAheadArray(counts);
   */
  callSkipAheadArray(arr: GPUArray, opts: CurandOptions = {}): void {
    this.skipArray('skip_ahead_array', arr, 32, streamOf(opts, 'callSkipAheadArray'));
  }
}

/**
 * cuRAND's Sobol32 quasi-random generator; generator i draws dimension i mod 20000 of cuRAND's
 * direction vectors unless `dirVectors` (uint32 [generatorCount, 32]) is given.
 * @example
 * const gen = new random.Sobol32RandomNumberGenerator();
 * const q = gen.genUniform([gen.generatorCount * 4], 'float64');
 */
export class Sobol32RandomNumberGenerator extends SobolGenerator {
  constructor(dirVectors?: GPUArray, offset: number = 0, layout?: GeneratorLayout) {
    super('sobol32', dirVectors, undefined, offset, layout);
  }
}

/**
 * cuRAND's scrambled Sobol32 generator (scrambled direction vectors and scramble constants).
 * @example
 * const gen = new random.ScrambledSobol32RandomNumberGenerator();
 */
export class ScrambledSobol32RandomNumberGenerator extends SobolGenerator {
  constructor(dirVectors?: GPUArray, scrambleVector?: GPUArray, offset: number = 0, layout?: GeneratorLayout) {
    super('scrambledSobol32', dirVectors, scrambleVector, offset, layout);
  }
}
