/**
 * random: a counter-based Philox4x32-10 generator in our own kernels (lib/templates/philox.ts),
 * NumPy-style distributions, and the PyCUDA-style module functions rand/randn/seed.
 *
 * The state is (seed, offset): offset counts 32-bit words of the Philox stream already used. A
 * draw of n elements taking C words each (C = 1 for float16/bfloat16/float32 and ≤ 32-bit integers, 2 for
 * float64 and 64-bit integers) starts at unit e0 = ceil(offset / C) and leaves offset at
 * C·(e0 + n). Element k is a function of (seed, e0 + k) alone, so one call of n + m elements
 * equals a call of n then one of m, and consecutive calls never share words. See docs/random.md.
 */
import { envNumber } from '../base/env';
import { randomBytes } from 'crypto';
import { DTYPES, DType, DTypeLike, dtype as toDType } from '../base/dtype';
import { describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream, currentContext, deviceArg, multiprocessorCount, streamHandle } from '../cuda/driver';
import { useOn } from '../cuda/memory';
import { GPUArray } from '../array/gpuarray';
import { generatedKernel } from '../cuda/modules';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { assign } from '../array/operators';
import { checkWritable } from '../array/overlap';
import { normalizeShape } from '../base/shape';
import { CurandSequence, fillFromSequence } from './curand_sequence';
import { Distribution, RANDOM_CHUNK, dtypesOf, elementsPerThread, randomKernel, wordsPerElement } from '../engine/templates/philox';
import { DeviceId, checkDevices, deviceMismatch, onDevice } from '../array/devices';

/**
 * The bit generator of a random.Generator: 'philox' (Philox4x32-10, our kernels, every
 * distribution) or cuRAND's 'xorwow' / 'mrg32k3a' (uniform, normal, logNormal, exponential).
 */
export type Algorithm = 'philox' | 'xorwow' | 'mrg32k3a';

/**
 * Options of `new random.Generator()`.
 * @example
 * const g = new random.Generator({ seed: 7, algorithm: 'mrg32k3a' });
 */
export interface GeneratorOptions {
  /** 64-bit seed: a non-negative integer or bigint (default: 64 random bits from the OS). */
  seed?: number | bigint;
  /** 'philox' (default), 'xorwow' or 'mrg32k3a' (see {@link Algorithm}). */
  algorithm?: Algorithm;
}

/**
 * A generator's reproducible state.
 * @example
 * const s = g.state; // { seed: 42n, offset: 1024, algorithm: 'philox' }
 */
export interface RandomState {
  /** The 64-bit seed. */
  seed: bigint;
  /** philox: 32-bit words of the stream already used; xorwow/mrg32k3a: values already drawn. */
  offset: number;
  /** The generator's algorithm; setState refuses a state of another one. */
  algorithm: Algorithm;
}

/** Options shared by every draw. */
export interface DrawOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /**
   * Device of a new array (ordinal or driver.Device; default: the current device). The fill forms
   * run on the current device and refuse an array of another (ERR_DEVICE_MISMATCH); given to a
   * fill form, it must be the array's device (else TypeError ERR_DEVICE_MISMATCH), and the fill
   * runs there. A device that does not exist is a RangeError ERR_OUT_OF_RANGE, a value that is not
   * an ordinal or driver.Device a TypeError ERR_INVALID_ARG_TYPE (as for the array-making forms).
   */
  device?: DeviceId;
}

const BLOCK = 256;
const U64 = 2n ** 64n;
// Grid-stride over WAVES × the blocks the device holds at once (NODECUDA_RANDOM_WAVES). Measured
// on an H200 (float32, 2^28, TB/s written): one thread per 16 bytes, 3.27 (uniform) / 2.37
// (normal); grid-stride with 32-bit indices, 2 waves 3.94 / 2.63, 4 waves 3.98 / 2.62, 8 waves 4.14 / 2.63.
const WAVES = envNumber('NODECUDA_RANDOM_WAVES', 8, { min: 1, max: 64 });
interface RandomKernel { generation: number; ctx: number; fn: NativeAddon.FunctionHandle; maxBlocks: number }
const kernels = new Map<string, RandomKernel>();
const P = new ArgPacker(64);
// NumPy's POISSON_LAM_MAX: above it, the result would not fit in int64.
const POISSON_LAM_MAX = 9.223372006484771e18;

function kernelFor(dist: Distribution, d: DType, vec: boolean): RandomKernel {
  const key = `${dist}:${d.name}:${vec ? 'v' : 's'}`;
  const { generation, id: ctx } = currentContext();
  const hit = kernels.get(key);
  if (hit && hit.generation === generation && hit.ctx === ctx) return hit;
  const { source, name } = randomKernel(dist, d, vec);
  const fn = generatedKernel(source, name);
  const perSM = Math.max(1, cu.occupancyMaxActiveBlocks(fn, BLOCK, 0));
  const k = { generation, ctx, fn, maxBlocks: WAVES * perSM * multiprocessorCount() };
  kernels.set(key, k);
  return k;
}

function seedOf(seed: unknown): bigint {
  if (seed === undefined) return randomBytes(8).readBigUInt64LE(0);
  if (typeof seed === 'number') {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw rangeError('ERR_OUT_OF_RANGE', `The seed must be a non-negative safe integer or a bigint. Received ${seed}`);
    }
    return BigInt(seed);
  }
  if (typeof seed === 'bigint') {
    if (seed < 0n || seed >= U64) throw rangeError('ERR_OUT_OF_RANGE', `The seed must be in [0, 2^64). Received ${seed}n`);
    return seed;
  }
  throw typeError('ERR_INVALID_ARG_TYPE', `The seed must be a number or a bigint. Received ${describe(seed)}`);
}

function finite(v: unknown, name: string, dflt: number): number {
  if (v === undefined) return dflt;
  if (typeof v !== 'number') throw typeError('ERR_INVALID_ARG_TYPE', `${name} must be a number. Received ${describe(v)}`);
  if (!Number.isFinite(v)) throw rangeError('ERR_OUT_OF_RANGE', `${name} must be finite. Received ${v}`);
  return v;
}

function nonNegative(v: unknown, name: string, dflt: number): number {
  const x = finite(v, name, dflt);
  if (x < 0) throw rangeError('ERR_OUT_OF_RANGE', `${name} must be >= 0. Received ${x}`);
  return x;
}

function dtypeFor(dist: Distribution, d: DTypeLike | undefined, dflt: DType): DType {
  const dt = d === undefined ? dflt : toDType(d);
  if (!dtypesOf(dist).includes(dt.name)) {
    throw typeError('ERR_INVALID_DTYPE', `${dist} cannot produce ${dt.name}; use one of ${dtypesOf(dist).join(', ')}`);
  }
  return dt;
}

const DRAW = ['stream', 'device'];

/**
 * `o` as options ({} when undefined); with `keys`, a name not among them is a TypeError
 * ERR_INVALID_ARG_VALUE (NumPy's out or size: refused, not ignored).
 */
function opts<T extends object>(o: T | undefined, what = '', keys?: readonly string[]): T {
  if (o === undefined) return {} as T;
  if (o === null || typeof o !== 'object') throw typeError('ERR_INVALID_ARG_TYPE', `The options must be an object. Received ${describe(o)}`);
  if (keys) knownOptions(o, what, keys);
  return o;
}

function intArg(v: unknown, name: string): bigint {
  if (typeof v === 'bigint') return v;
  if (typeof v === 'number' && Number.isSafeInteger(v)) return BigInt(v);
  throw typeError('ERR_INVALID_ARG_TYPE', `${name} must be a safe integer or a bigint. Received ${describe(v)}`);
}

/** Kernel parameters beyond the stream position: doubles a, b and 64-bit integers ia, ib. */
interface Params { a: number; b: number; ia: bigint; ib: bigint }

/**
 * NumPy's Generator API on the GPU over a Philox4x32-10 stream (default; PyCUDA's curandom
 * defaults) or cuRAND's XORWOW / MRG32k3a (`algorithm`). The cuRAND algorithms draw from 65536
 * generators (generator t = curand_init(seed, t, 0); value e of the stream from generator
 * e mod 65536, so any split of a request gives the same numbers), created on the first draw.
 * They offer uniform (cuRAND's (0, 1] mapped to (low, high]), normal, logNormal and exponential
 * for float16/bfloat16/32/64 (float16 and bfloat16 through float32); integers and poisson need 'philox'.
 * @example
 * const g = new random.Generator({ seed: 42 });
 * const x = g.normal([1024], { mean: 0, std: 1, dtype: 'float32' });
 * const again = new random.Generator({ seed: 42 }).normal([1024], { dtype: 'float32' }); // same numbers
 * const m = new random.Generator({ seed: 42, algorithm: 'mrg32k3a' }).uniform([1024], { dtype: 'float32' });
 */
export class Generator {
  #seed: bigint;
  #k0: number;
  #k1: number;
  #offset = 0;
  readonly #alg: Algorithm;
  /** xorwow/mrg32k3a: the cuRAND states (null until the first draw or after setState) and their stream. */
  #seq: CurandSequence | null = null;
  #seqStream: Stream | null | undefined = null;
  /** The context (id and generation) the states live in: a draw in another makes them again there. */
  #seqCtx = '';

  constructor(options: GeneratorOptions = {}) {
    const o = opts(options, 'random.Generator', ['seed', 'algorithm']);
    if (o.algorithm !== undefined && o.algorithm !== 'philox' && o.algorithm !== 'xorwow' && o.algorithm !== 'mrg32k3a') {
      throw rangeError('ERR_INVALID_ARG_VALUE', `Generator algorithm ${describe(o.algorithm)} is not available: ` +
        "use 'philox', 'xorwow' or 'mrg32k3a'");
    }
    this.#alg = o.algorithm ?? 'philox';
    this.#seed = seedOf(o.seed);
    this.#k0 = Number(this.#seed & 0xffffffffn);
    this.#k1 = Number(this.#seed >> 32n);
  }

  /** The bit generator: 'philox', 'xorwow' or 'mrg32k3a'. */
  get algorithm(): Algorithm { return this.#alg; }

  /**
   * Frees the device memory of the xorwow/mrg32k3a states now instead of at garbage collection
   * (idempotent; philox keeps none). The generator stays usable: the next draw re-creates its
   * states at the same position, as after setState(g.state).
   * @example
   * { using g = new random.Generator({ algorithm: 'xorwow', seed: 1 }); g.uniform(1000); }
   */
  dispose(): void {
    this.#seq?.dispose(this.#seqStream);
    this.#seq = null;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void { this.dispose(); }

  /**
   * The state (seed, words used (philox) or values drawn (xorwow/mrg32k3a), algorithm);
   * `setState(g.state)` later replays from here. For xorwow/mrg32k3a, setState re-seeds and skips
   * `offset` single-draw values, which is where the stream stands after uniform draws (float16/32,
   * and MRG32k3a float64) and exponential ones; after normal/logNormal (Box–Muller keeps a second
   * value) or XORWOW float64 uniforms (two draws a value) it is a different, equally reproducible point.
   * @example
   * const s = g.state; const a = g.uniform(10); g.setState(s); const b = g.uniform(10); // a equals b
   */
  get state(): RandomState {
    return { seed: this.#seed, offset: this.#offset, algorithm: this.#alg };
  }

  /**
   * Restores a state from `state` (seed and offset; algorithm, when given, must be the generator's).
   * @example
   * g.setState({ seed: 42n, offset: 0, algorithm: 'philox' });
   * new random.Generator({ algorithm: 'xorwow' }).setState({ seed: 1n, offset: 4096, algorithm: 'xorwow' });
   */
  setState(state: RandomState): this {
    const s = opts(state);
    if (s.algorithm !== undefined && s.algorithm !== this.#alg) {
      throw rangeError('ERR_INVALID_ARG_VALUE', `setState: algorithm must be '${this.#alg}' (this generator's). ` +
        `Received ${describe(s.algorithm)}`);
    }
    const seed = seedOf(s.seed === undefined ? null : s.seed);
    const offset = s.offset;
    if (typeof offset !== 'number' || !Number.isSafeInteger(offset) || offset < 0) {
      throw rangeError('ERR_OUT_OF_RANGE', `setState: offset must be a non-negative safe integer. Received ${describe(offset)}`);
    }
    this.#seed = seed;
    this.#k0 = Number(seed & 0xffffffffn);
    this.#k1 = Number(seed >> 32n);
    this.#offset = offset;
    this.#seq?.dispose(this.#seqStream); // re-created (seeded, then skipped to offset) on the next draw
    this.#seq = null;
    return this;
  }

  /**
   * Skips `n` 32-bit words (philox) or `n` values (xorwow/mrg32k3a) of the stream: the same as a
   * float32 uniform draw of n elements, discarded (cuRAND's skipahead on the next draw).
   * @example
   * g.skipAhead(1000);
   */
  skipAhead(n: number | bigint): this {
    const k = typeof n === 'bigint' ? n : intArg(n, 'skipAhead(n)');
    if (k < 0n) throw rangeError('ERR_OUT_OF_RANGE', `skipAhead(n): n must be >= 0. Received ${k}`);
    const next = BigInt(this.#offset) + k;
    if (next > BigInt(Number.MAX_SAFE_INTEGER)) throw rangeError('ERR_OUT_OF_RANGE', 'skipAhead(n): the offset would pass 2^53 words');
    this.#offset = Number(next);
    return this;
  }

  /** Fills `a` (any layout) with `dist`, advancing the stream. @internal */
  fill_(dist: Distribution, a: GPUArray, p: Params, stream: Stream | null | undefined): GPUArray {
    if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `Expected a GPUArray. Received ${describe(a)}`);
    a.check();
    checkWritable(a, `${dist} fill`); // before the generator's state moves
    const d = a.dtype;
    if (!dtypesOf(dist).includes(d.name)) {
      throw typeError('ERR_INVALID_DTYPE', `${dist} cannot fill a ${d.name} array; use one of ${dtypesOf(dist).join(', ')}`);
    }
    const n = a.size;
    if (n === 0) return a;
    const h = streamHandle(stream);
    useOn(a, h); // memory of another stream: its free waits for this fill (memory.ts)
    if (!a.flags.cContiguous) {
      // Generated in C order of the view, then scattered into it.
      const tmp = GPUArray.allocate(a.shape, d, stream);
      try {
        this.fill_(dist, tmp, p, stream);
        assign(a, tmp, stream);
      } finally {
        tmp.dispose();
      }
      return a;
    }
    const c = wordsPerElement(dist, d);
    const e0 = Math.ceil(this.#offset / c);
    const next = c * (e0 + n);
    if (next > Number.MAX_SAFE_INTEGER) throw rangeError('ERR_OUT_OF_RANGE', 'The Philox stream offset would pass 2^53 words');
    const ept = elementsPerThread(dist, d);
    const vec = a.align16 % Math.min(16, ept * d.bytes) === 0;
    const k = kernelFor(dist, d, vec);
    // Chunks of RANDOM_CHUNK elements (a multiple of every vector width): element k is unit e0 + k.
    for (let done = 0; done < n; done += RANDOM_CHUNK) {
      const m = Math.min(RANDOM_CHUNK, n - done), e = e0 + done;
      // (out, n, e0, k0, k1, a, b, ia, ib): templates/philox.ts
      P.reset().ptr(a.ptr + BigInt(done * d.bytes)).u64n(m).u64n(e).u32(this.#k0).u32(this.#k1)
        .f64(p.a).f64(p.b).u64(p.ia).u64(p.ib);
      P.launch(k.fn, h, Math.min(Math.ceil(m / ept / BLOCK), k.maxBlocks), 1, 1, BLOCK, 1, 1, 0, true);
    }
    this.#offset = next;
    return a;
  }

  /** Fills `a` with `dist` from this generator's algorithm (philox: fill_). */
  #fill(dist: Distribution, a: GPUArray, p: Params, stream: Stream | null | undefined): GPUArray {
    if (a instanceof GPUArray) checkDevices(dist, [a]);
    if (this.#alg === 'philox') return this.fill_(dist, a, p, stream);
    this.#philoxOnly(dist);
    if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `Expected a GPUArray. Received ${describe(a)}`);
    a.check();
    if (!dtypesOf(dist).includes(a.dtype.name)) {
      throw typeError('ERR_INVALID_DTYPE', `${dist} cannot fill a ${a.dtype.name} array; use one of ${dtypesOf(dist).join(', ')}`);
    }
    if (a.size === 0) return a;
    if (this.#offset + a.size > Number.MAX_SAFE_INTEGER) {
      throw rangeError('ERR_OUT_OF_RANGE', `The ${this.#alg} stream position would pass 2^53 values`);
    }
    // The states live on one device: a draw on another (withDevice, { device }) makes them again
    // there, seeded and skipped to the same position, instead of launching on the other's memory.
    const ctx = currentContext();
    const here = `${ctx.id}:${ctx.generation}`;
    if (this.#seq && this.#seqCtx !== here) {
      this.#seq.dispose(this.#seqStream);
      this.#seq = null;
    }
    if (!this.#seq) {
      this.#seq = new CurandSequence(this.#alg, this.#seed, stream);
      this.#seqCtx = here;
    }
    this.#seqStream = stream;
    fillFromSequence(this.#seq, this.#offset, dist as 'uniform' | 'normal' | 'lognormal' | 'exponential', a, p.a, p.b, stream);
    this.#offset = this.#seq.position;
    return a;
  }

  /**
   * A fill form: `a` filled with `dist` on `o.device` when given (checked as the array-making
   * forms check it; TypeError ERR_DEVICE_MISMATCH unless `a` lives there), else where the caller is.
   */
  #fillOn(dist: Distribution, a: GPUArray, p: Params, o: DrawOptions, what: string): GPUArray {
    if (o.device === undefined || !(a instanceof GPUArray)) return this.#fill(dist, a, p, o.stream); // #fill refuses a non-array
    const device = deviceArg(o.device);
    const own = a.check().device;
    if (own !== device) {
      const e = deviceMismatch(what, own, device);
      e.message = `${what}: the "device" option is device ${device}; the array lives on device ${own} (pass its own device, or fill a.to(${device}))`;
      throw e;
    }
    return onDevice(device, () => this.#fill(dist, a, p, o.stream));
  }

  /** Throws for the distributions only Philox has (before any GPU work). */
  #philoxOnly(dist: Distribution): void {
    if (this.#alg !== 'philox' && (dist === 'integers' || dist === 'poisson')) {
      throw typeError('ERR_INVALID_ARG_VALUE', `${dist} needs algorithm 'philox'; this generator uses '${this.#alg}'`);
    }
  }

  #draw(dist: Distribution, shape: number | readonly number[], d: DType, p: Params, o: DrawOptions): GPUArray {
    this.#philoxOnly(dist);
    return onDevice(o.device, () => {
      const out = GPUArray.allocate(normalizeShape(shape), d, o.stream);
      try {
        return this.#fill(dist, out, p, o.stream);
      } catch (e) {
        out.dispose();
        throw e;
      }
    });
  }

  /**
   * Uniform in [low, high) (default [0, 1); float16/bfloat16/32/64, default float64 as NumPy).
   * float32 values are multiples of 2^-24, float16 of 2^-11, bfloat16 of 2^-8, float64 of 2^-53 (before scaling).
   * xorwow/mrg32k3a: cuRAND's curand_uniform(_double) u in (0, 1] as low + u·(high − low), in (low, high].
   * @example
   * const x = g.uniform([4, 4], { low: -1, high: 1, dtype: 'float32' });
   */
  uniform(shape: number | readonly number[], options?: { low?: number; high?: number; dtype?: DTypeLike } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.uniform()', ['low', 'high', 'dtype', ...DRAW]);
    return this.#draw('uniform', shape, dtypeFor('uniform', o.dtype, DTYPES.float64), uniformParams(o), o);
  }

  /**
   * Fills `a` (float16/bfloat16/32/64, any layout) with uniform values in [low, high) ((low, high] for xorwow/mrg32k3a).
   * @example
   * g.fillUniform(a, { low: 0, high: 10 });
   */
  fillUniform(a: GPUArray, options?: { low?: number; high?: number } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.fillUniform()', ['low', 'high', ...DRAW]);
    return this.#fillOn('uniform', a, uniformParams(o), o, 'Generator.fillUniform()');
  }

  /**
   * Normal with mean `mean` and standard deviation `std` (Box–Muller; default float64).
   * @example
   * const z = g.normal(1 << 20, { dtype: 'float32' });
   */
  normal(shape: number | readonly number[], options?: { mean?: number; std?: number; dtype?: DTypeLike } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.normal()', ['mean', 'std', 'dtype', ...DRAW]);
    return this.#draw('normal', shape, dtypeFor('normal', o.dtype, DTYPES.float64), normalParams(o), o);
  }

  /**
   * Fills `a` (float16/bfloat16/32/64) with normal values.
   * @example
   * g.fillNormal(a, { mean: 10, std: 2 });
   */
  fillNormal(a: GPUArray, options?: { mean?: number; std?: number } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.fillNormal()', ['mean', 'std', ...DRAW]);
    return this.#fillOn('normal', a, normalParams(o), o, 'Generator.fillNormal()');
  }

  /**
   * exp(normal(mean, std)): log-normal (mean and std are those of the underlying normal).
   * @example
   * const x = g.logNormal([100], { mean: 0, std: 0.5 });
   */
  logNormal(shape: number | readonly number[], options?: { mean?: number; std?: number; dtype?: DTypeLike } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.logNormal()', ['mean', 'std', 'dtype', ...DRAW]);
    return this.#draw('lognormal', shape, dtypeFor('lognormal', o.dtype, DTYPES.float64), normalParams(o), o);
  }

  /**
   * Fills `a` with log-normal values (PyCUDA's argument order: mean, std).
   * @example
   * g.fillLogNormal(a, 0, 0.5);
   */
  fillLogNormal(a: GPUArray, mean = 0, std = 1, options?: DrawOptions): GPUArray {
    const p = normalParams({ mean, std });
    return this.#fillOn('lognormal', a, p, opts(options, 'Generator.fillLogNormal()', DRAW), 'Generator.fillLogNormal()');
  }

  /**
   * Exponential with scale (mean) `scale`: -scale·log(u), u in (0, 1].
   * @example
   * const t = g.exponential([1000], { scale: 2 });
   */
  exponential(shape: number | readonly number[], options?: { scale?: number; dtype?: DTypeLike } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.exponential()', ['scale', 'dtype', ...DRAW]);
    return this.#draw('exponential', shape, dtypeFor('exponential', o.dtype, DTYPES.float64), expParams(o), o);
  }

  /**
   * Fills `a` with exponential values.
   * @example
   * g.fillExponential(a, { scale: 2 });
   */
  fillExponential(a: GPUArray, options?: { scale?: number } & DrawOptions): GPUArray {
    const o = opts(options, 'Generator.fillExponential()', ['scale', ...DRAW]);
    return this.#fillOn('exponential', a, expParams(o), o, 'Generator.fillExponential()');
  }

  /**
   * Poisson counts with mean `lambda` (default int64, as NumPy; any integer dtype or float32/64).
   * Philox only: xorwow/mrg32k3a generators throw a TypeError (ERR_INVALID_ARG_VALUE).
   * @example
   * const k = g.poisson([1000], 4);
   */
  poisson(shape: number | readonly number[], lambda = 1, options?: { dtype?: DTypeLike } & DrawOptions): GPUArray {
    this.#philoxOnly('poisson');
    const o = opts(options, 'Generator.poisson()', ['dtype', ...DRAW]);
    return this.#draw('poisson', shape, dtypeFor('poisson', o.dtype, DTYPES.int64), poissonParams(lambda), o);
  }

  /**
   * Fills `a` with Poisson counts of mean `lambda`.
   * @example
   * g.fillPoisson(a, 3.5);
   */
  fillPoisson(a: GPUArray, lambda: number, options?: DrawOptions): GPUArray {
    this.#philoxOnly('poisson');
    const p = poissonParams(lambda);
    return this.#fillOn('poisson', a, p, opts(options, 'Generator.fillPoisson()', DRAW), 'Generator.fillPoisson()');
  }

  /**
   * Integers uniform in [low, high) without bias (Lemire's method with rejection); with `high`
   * omitted, [0, low). dtype int8..uint64 (default int64); bigints for 64-bit bounds. Philox only.
   * @example
   * const dice = g.integers([100], 1, 7, 'int32');
   */
  integers(shape: number | readonly number[], low: number | bigint, high?: number | bigint, dtype: DTypeLike = 'int64',
    options?: DrawOptions): GPUArray {
    this.#philoxOnly('integers');
    const d = dtypeFor('integers', dtype, DTYPES.int64);
    return this.#draw('integers', shape, d, integerParams(d, low, high), opts(options, 'Generator.integers()', DRAW));
  }

  /**
   * Fills `a` (an integer array) with integers in [low, high).
   * @example
   * g.fillIntegers(a, 0, 10);
   */
  fillIntegers(a: GPUArray, low: number | bigint, high?: number | bigint, options?: DrawOptions): GPUArray {
    this.#philoxOnly('integers');
    if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `Expected a GPUArray. Received ${describe(a)}`);
    const d = dtypeFor('integers', a.dtype, DTYPES.int64);
    const p = integerParams(d, low, high);
    return this.#fillOn('integers', a, p, opts(options, 'Generator.fillIntegers()', DRAW), 'Generator.fillIntegers()');
  }
}

function uniformParams(o: { low?: unknown; high?: unknown }): Params {
  const low = finite(o.low, 'low', 0);
  const high = finite(o.high, 'high', 1);
  if (!(low < high)) throw rangeError('ERR_OUT_OF_RANGE', `uniform needs low < high. Received low=${low}, high=${high}`);
  const span = high - low;
  if (!Number.isFinite(span)) throw rangeError('ERR_OUT_OF_RANGE', `high - low overflows (${low}, ${high})`);
  return { a: low, b: span, ia: 0n, ib: 0n };
}

function normalParams(o: { mean?: unknown; std?: unknown }): Params {
  return { a: finite(o.mean, 'mean', 0), b: nonNegative(o.std, 'std', 1), ia: 0n, ib: 0n };
}

function expParams(o: { scale?: unknown }): Params {
  return { a: nonNegative(o.scale, 'scale', 1), b: 0, ia: 0n, ib: 0n };
}

function poissonParams(lambda: unknown): Params {
  const lam = nonNegative(lambda, 'lambda', 1);
  if (lam > POISSON_LAM_MAX) throw rangeError('ERR_OUT_OF_RANGE', `lambda must be <= ${POISSON_LAM_MAX}. Received ${lam}`);
  return { a: lam, b: Math.exp(-lam), ia: 0n, ib: 0n };
}

function integerParams(d: DType, lowArg: unknown, highArg: unknown): Params {
  let low = intArg(lowArg, 'low');
  let high: bigint;
  if (highArg === undefined || highArg === null) {
    high = low;
    low = 0n;
  } else {
    high = intArg(highArg, 'high');
  }
  const bits = BigInt(d.bytes * 8);
  const min = d.kind === 'i' ? -(1n << (bits - 1n)) : 0n;
  const max = d.kind === 'i' ? (1n << (bits - 1n)) - 1n : (1n << bits) - 1n;
  if (low >= high) throw rangeError('ERR_OUT_OF_RANGE', `integers needs low < high. Received low=${low}, high=${high}`);
  if (low < min) throw rangeError('ERR_OUT_OF_RANGE', `low=${low} is out of bounds for ${d.name}`);
  if (high - 1n > max) throw rangeError('ERR_OUT_OF_RANGE', `high=${high} is out of bounds for ${d.name}`);
  const range = high - low; // ≤ 2^bits; the kernel reads 2^32 (≤ 32-bit types) or 2^64 as 0
  const ib = d.bytes === 8 ? range % U64 : range % 2n ** 32n;
  return { a: 0, b: 0, ia: BigInt.asUintN(64, low), ib };
}

let defaultGen: Generator | null = null;

function defaultGenerator(): Generator {
  defaultGen ??= new Generator();
  return defaultGen;
}

function floatDtype(dist: Distribution, d: DTypeLike | undefined): DType {
  return dtypeFor(dist, d, DTYPES.float32);
}

/**
 * Uniform [0, 1) values from the default generator (pycuda.curandom.rand; float32 by default).
 * @example
 * const x = random.rand([1024, 1024]);
 */
export function rand(shape: number | readonly number[], dtype: DTypeLike = 'float32', options?: DrawOptions): GPUArray {
  const o = opts(options, 'random.rand', DRAW);
  return defaultGenerator().uniform(shape, { dtype: floatDtype('uniform', dtype), stream: o.stream, device: o.device });
}

/**
 * Standard normal values from the default generator (float32 by default).
 * @example
 * const z = random.randn(1000);
 */
export function randn(shape: number | readonly number[], dtype: DTypeLike = 'float32', options?: DrawOptions): GPUArray {
  const o = opts(options, 'random.randn', DRAW);
  return defaultGenerator().normal(shape, { dtype: floatDtype('normal', dtype), stream: o.stream, device: o.device });
}

/**
 * Re-seeds the default generator (offset back to 0), for reproducible rand/randn.
 * @example
 * random.seed(1234); const a = random.rand(10); random.seed(1234); const b = random.rand(10); // same
 */
export function seed(s: number | bigint): void {
  defaultGen = new Generator({ seed: seedOf(s) });
}
