/**
 * CuPy's form of ElementwiseKernel (`ElementwiseKernel.generic`, GenericElementwiseKernel): type
 * placeholders, broadcasting, strided operands, `raw` arguments and allocated outputs, built on the
 * elementwise engine (kernels/elementwise.ts has PyCUDA's form).
 */
import { Complex, DTYPES, DType, Scalar, checkStorable, coerce } from '../base/dtype';
import { describe, knownOptions, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { GPUArray } from '../array/gpuarray';
import { ArrayOperand, ScalarOperand, runElementwise } from '../engine/elementwise';
import { assign } from '../array/operators';
import { checkWritable, overlaps } from '../array/overlap';
import { canCast } from '../base/promote';
import { broadcastShapes, broadcastStrides } from '../base/shape';
import { ElementwiseSpec, InputSpec, OutputSpec } from '../engine/templates/elementwise';
import { IDENT, ResolvedParam, cTypeDType, genericBody, helpers } from '../engine/templates/elementwise_kernel';
import { checkDevices } from '../array/devices';
import { contiguityError, isPlainObject, kernelName, str, strings } from './user_args';

/** Construction options of the CuPy form. */
export interface GenericKernelOptions {
  /** Device code placed before the kernel. */
  preamble?: string;
  /** Extra NVRTC options. */
  options?: string[];
}

/** Call options of a CuPy-form kernel. */
export interface GenericCallOptions {
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
  /** Number of elements when no non-raw array gives the shape (as CuPy's `size=`). */
  size?: number;
}

interface Param { name: string; raw: boolean; type: DType | null; placeholder: string | null }

function parseParams(src: unknown, what: string): Param[] {
  const s = str(src, what).trim();
  if (s === '') return [];
  return s.split(',').map((d) => {
    const words = d.trim().split(/\s+/);
    const raw = words[0] === 'raw';
    if (raw) words.shift();
    const name = words.pop();
    const t = words.join(' ');
    if (!name || !IDENT.test(name) || t === '') {
      throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel.generic: cannot parse ${what} parameter "${d.trim()}": expected "[raw] <type or placeholder> name"`);
    }
    const type = cTypeDType(t) ?? null;
    if (!type && !IDENT.test(t)) throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel.generic: unknown type "${t}" in "${d.trim()}"`);
    return { name, raw, type, placeholder: type ? null : t };
  });
}

function readsOutput(op: string, name: string): boolean {
  const re = new RegExp(`(?<![\\w.>])${name}\\b`, 'g');
  for (let m; (m = re.exec(op));) {
    if (!/^\s*=(?!=)/.test(op.slice(m.index + name.length))) return true;
  }
  return false;
}

type Bound = GPUArray | { value: number | bigint | boolean | Complex; strong?: DType } | null;

/** The call signature of a GenericElementwiseKernel. */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export interface GenericElementwiseKernel {
  /** Inputs, then optionally outputs (omitted or null: allocated), then optionally `{ stream?, size? }`. */
  (...args: unknown[]): GPUArray | GPUArray[];
}

/**
 * CuPy's ElementwiseKernel: `inParams`/`outParams` like `"T x, raw T a, float32 w"`; user code
 * sees each non-raw parameter as a value of its compute type (float16/bfloat16 as float, complex as
 * nc_complex), `i` the linear index in the (broadcast) output, `n` the element count, raw ones as
 * `a[j]`/`a.size()`. Returns the output (several: an array of them).
 * @example
 * const k = ElementwiseKernel.generic('T x, T y', 'T z', 'z = x > y ? x - y : T(0)', 'relu_diff');
 * const z = k(a, b.T);   // broadcast, strided
 */
// eslint-disable-next-line @typescript-eslint/no-unsafe-declaration-merging
export class GenericElementwiseKernel {
  /** @internal */ declare readonly ins: readonly Param[];
  /** @internal */ declare readonly outs: readonly Param[];
  /** @internal */ declare readonly kernel: string;
  /** @internal */ declare readonly operation: string;
  /** @internal */ declare readonly preamble: string;
  /** @internal */ declare readonly options: string[];
  /** @internal */ declare readonly specs: Map<string, ElementwiseSpec>;
  /** @internal */ declare readonly reads: readonly boolean[];

  constructor(inParams: string, outParams: string, operation: string, name?: string, options: GenericKernelOptions = {}) {
    if (!isPlainObject(options)) throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel.generic: options must be an object. Received ${describe(options)}`);
    knownOptions(options, 'ElementwiseKernel.generic', ['preamble', 'options']); // CuPy's reduce_dims or no_return: refused
    const ins = parseParams(inParams, 'input'), outs = parseParams(outParams, 'output');
    const op = str(operation, 'operation');
    if (outs.length === 0) throw typeError('ERR_INVALID_ARG_VALUE', 'ElementwiseKernel.generic: needs at least one output parameter');
    const names = new Set<string>();
    const holders = new Set([...ins, ...outs].map((p) => p.placeholder).filter((p): p is string => !!p));
    for (const p of [...ins, ...outs]) {
      if (names.has(p.name) || p.name === 'i' || p.name === 'n' || holders.has(p.name) || p.name.startsWith('__ek_')) {
        throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel.generic: parameter name "${p.name}" is repeated or reserved (i, n, placeholders)`);
      }
      names.add(p.name);
    }
    const fn = function (...a: unknown[]): GPUArray | GPUArray[] { return callGeneric(fn as unknown as GenericElementwiseKernel, a); };
    Object.setPrototypeOf(fn, new.target.prototype);
    const ro = (value: unknown) => ({ value, enumerable: false, writable: false, configurable: false });
    const preamble = str(options.preamble, 'preamble');
    Object.defineProperties(fn, {
      name: { value: kernelName(name), configurable: true }, kernel: ro(kernelName(name)), operation: ro(op),
      ins: ro(Object.freeze(ins)), outs: ro(Object.freeze(outs)), preamble: ro(preamble),
      options: ro(strings(options.options)), specs: ro(new Map()), reads: ro(outs.map((o) => !o.raw && readsOutput(op, o.name))),
    });
    return fn as unknown as GenericElementwiseKernel;
  }

  /**
   * The ElementwiseSpec (engine input) for the given dtypes: one per input (`null` for a JS
   * scalar bound to its placeholder's type) and per output. For inspection and compile tests.
   * @example
   * const spec = k.specFor(['float32', 'float32'], ['float32']);
   */
  specFor(inDtypes: ReadonlyArray<string | null>, outDtypes: ReadonlyArray<string>,
    scalarTypes: ReadonlyArray<string | null> = []): ElementwiseSpec {
    const dt = (s: string) => cTypeDType(s) ?? (() => { throw typeError('ERR_INVALID_DTYPE', `unknown dtype ${s}`); })();
    const ins: Bound[] = inDtypes.map((d, j) => d === null ? { value: 0, strong: scalarTypes[j] ? dt(scalarTypes[j]!) : undefined }
      : fakeArray(dt(d)));
    const outs: Bound[] = outDtypes.map((d) => fakeArray(dt(d)));
    return resolve(this, ins, outs).spec;
  }
}
Object.setPrototypeOf(GenericElementwiseKernel.prototype, Function.prototype);

/** A stand-in with just a dtype, for specFor(). */
function fakeArray(d: DType): GPUArray {
  return Object.assign(Object.create(GPUArray.prototype) as GPUArray, { dtype: d });
}

interface Resolution { spec: ElementwiseSpec; types: Map<string, DType>; outTypes: DType[] }

function bindType(k: GenericElementwiseKernel, types: Map<string, DType>, p: Param, d: DType, where: string): void {
  const h = p.placeholder!;
  const prev = types.get(h);
  if (prev && prev !== d) {
    throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): ${where} binds ${h} to ${d.name}, but ${h} is already ${prev.name} (same placeholder, same dtype)`);
  }
  types.set(h, d);
}

function weakType(v: number | bigint | boolean | Complex): DType {
  if (typeof v === 'boolean') return DTYPES.bool;
  if (typeof v === 'bigint') return DTYPES.int64;
  if (typeof v === 'number') return Number.isInteger(v) ? DTYPES.int64 : DTYPES.float64;
  return DTYPES.complex128;
}

/** Type resolution and the spec for bound arguments (arrays, scalars, or null for an omitted output). */
function resolve(k: GenericElementwiseKernel, ins: Bound[], outs: Bound[]): Resolution {
  const types = new Map<string, DType>();
  const all: Array<[Param, Bound, string]> = [
    ...k.ins.map((p, j): [Param, Bound, string] => [p, ins[j], `input "${p.name}"`]),
    ...k.outs.map((p, j): [Param, Bound, string] => [p, outs[j], `output "${p.name}"`]),
  ];
  for (const [p, b, where] of all) {
    const d = b instanceof GPUArray ? b.dtype : b?.strong;
    if (!d) continue;
    if (p.placeholder) bindType(k, types, p, d, where);
    else if (p.raw && b instanceof GPUArray && d !== p.type) {
      throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): raw ${where} must be a ${p.type!.name} array; got ${d.name}`);
    } else if (b instanceof GPUArray && !(where.startsWith('in') ? canCast(d, p.type!, 'same_kind') : canCast(p.type!, d, 'same_kind'))) {
      throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): ${where} is declared ${p.type!.name}; cannot convert a ${d.name} array (same_kind casting)`);
    }
  }
  for (const [p, b] of all) {
    if (p.placeholder && b && !(b instanceof GPUArray) && !types.has(p.placeholder)) types.set(p.placeholder, weakType(b.value));
  }
  const typeOf = (p: Param, where: string): DType => {
    const t = p.type ?? types.get(p.placeholder!);
    if (!t) throw typeError('ERR_INVALID_DTYPE', `${k.kernel}(): cannot infer the type ${p.placeholder} of ${where}: pass an array for it or give the output`);
    return t;
  };
  const inputs: InputSpec[] = [];
  const rp = (p: Param, t: DType, raw: boolean): ResolvedParam => {
    const r: ResolvedParam = { name: p.name, raw, type: t, slot: inputs.length };
    if (raw) {
      inputs.push({ dtype: DTYPES.uint64, compute: DTYPES.uint64, scalar: true },
        { dtype: DTYPES.uint64, compute: DTYPES.uint64, scalar: true });
      r.sizeSlot = r.slot + 1;
    }
    return r;
  };
  const resolvedIns = all.slice(0, k.ins.length).map(([p, b, where]) => {
    const t = typeOf(p, where);
    if (p.raw) return rp(p, t, true);
    const r = rp(p, t, false);
    inputs.push(b instanceof GPUArray ? { dtype: b.dtype, compute: t, scalar: false } : { dtype: t, compute: t, scalar: true });
    return r;
  });
  const outputs: OutputSpec[] = [];
  const outTypes: DType[] = [];
  const resolvedOuts = all.slice(k.ins.length).map(([p, b, where], j) => {
    const t = typeOf(p, where);
    outTypes.push(t);
    if (p.raw) return { ...rp(p, t, true), read: false };
    const store = b instanceof GPUArray ? b.dtype : t;
    outputs.push({ dtype: store, compute: t });
    const read = k.reads[j] && b instanceof GPUArray;
    const r = { ...rp(p, t, false), read };
    if (read) inputs.push({ dtype: store, compute: t, scalar: false });
    return r;
  });
  const key = JSON.stringify([
    inputs.map((x) => [x.dtype.name, x.compute.name, x.scalar]), outputs.map((o) => [o.dtype.name, o.compute.name]),
    resolvedOuts.map((o) => o.read), [...types].map(([h, d]) => h + d.name)]);
  let spec = k.specs.get(key);
  if (!spec) {
    const typedefs = new Map([...types].filter(([h]) => [...k.ins, ...k.outs].some((p) => p.placeholder === h)));
    spec = {
      name: k.kernel, inputs, outputs, options: k.options,
      body: genericBody(resolvedIns, resolvedOuts, typedefs, k.operation),
      preamble: `${helpers(k.preamble)}\n${k.preamble}`,
    };
    k.specs.set(key, spec);
  }
  return { spec, types, outTypes };
}

function asOperand(a: GPUArray, shape: readonly number[]): ArrayOperand {
  const same = a.shape.length === shape.length && a.shape.every((s, d) => s === shape[d]);
  const strides = same ? a.strides : broadcastStrides(a.shape, a.strides, shape);
  return { dtype: a.dtype, shape, strides, ptr: a.address, align16: a.align16, mem: a.alloc };
}

function callGeneric(k: GenericElementwiseKernel, a: unknown[]): GPUArray | GPUArray[] {
  const nIn = k.ins.length, nOut = k.outs.length;
  let opts: GenericCallOptions = {};
  if (a.length > nIn && isPlainObject(a[a.length - 1])) opts = a.pop() as GenericCallOptions;
  knownOptions(opts, `${k.kernel}()`, ['stream', 'size']); // CuPy's block_size or shared_mem: refused, not ignored
  if (a.length !== nIn && a.length !== nIn + nOut) {
    throw typeError('ERR_INVALID_ARG_COUNT', `${k.kernel}() takes ${nIn} input(s) (${k.ins.map((p) => p.name).join(', ')}), ` +
      `optionally ${nOut} output(s) (${k.outs.map((p) => p.name).join(', ')}), then optional { stream, size }; got ${a.length}`);
  }
  const bind = (v: unknown, p: Param, where: string, output: boolean): Bound => {
    if (v instanceof GPUArray) {
      v.check();
      if (p.raw && !v.flags.cContiguous) throw contiguityError(`${k.kernel}() raw ${where}`);
      if (output && !p.raw) checkWritable(v, `${k.kernel}() ${where}`);
      return v;
    }
    if (output && (v === undefined || v === null)) {
      if (p.raw) throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): raw ${where} must be passed (it cannot be allocated)`);
      return null;
    }
    if (output || p.raw) throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): ${p.raw ? 'raw ' : ''}${where} must be a GPUArray. Received ${describe(v)}`);
    if (v instanceof Scalar) return { value: v.value, strong: v.dtype };
    if (typeof v === 'number' || typeof v === 'bigint' || typeof v === 'boolean' ||
      (typeof v === 'object' && v !== null && typeof (v as Complex).re === 'number')) return { value: v as number };
    throw typeError('ERR_INVALID_ARG_TYPE', `${k.kernel}(): ${where} must be a GPUArray or a scalar. Received ${describe(v)}`);
  };
  const ins = k.ins.map((p, j) => bind(a[j], p, `input "${p.name}"`, false));
  const outs = k.outs.map((p, j) => bind(a[nIn + j], p, `output "${p.name}"`, true));
  const arrays = [...ins, ...outs].filter((b): b is GPUArray => b instanceof GPUArray);
  checkDevices(`${k.kernel}()`, arrays);
  const { spec, outTypes } = resolve(k, ins, outs);
  // Launch shape: broadcast of the non-raw input arrays (else of the given outputs); outputs must have it exactly.
  const inArrays = ins.filter((b, j) => b instanceof GPUArray && !k.ins[j].raw) as GPUArray[];
  const shaped = inArrays.length ? inArrays : outs.filter((b, j) => b instanceof GPUArray && !k.outs[j].raw) as GPUArray[];
  let shape: number[];
  if (shaped.length) {
    shape = broadcastShapes(...shaped.map((x) => x.shape));
    if (opts.size !== undefined && opts.size !== shape.reduce((x, y) => x * y, 1)) throw rangeError('ERR_SHAPE_MISMATCH', `${k.kernel}(): size ${opts.size} differs from the arrays' size`);
  } else {
    if (typeof opts.size !== 'number' || !Number.isInteger(opts.size) || opts.size < 0) {
      throw typeError('ERR_MISSING_OPTION', `${k.kernel}(): no non-raw array gives the size: pass { size: n }`);
    }
    shape = [opts.size];
  }
  const stream = opts.stream;
  const results: GPUArray[] = [];
  const temps: Array<[GPUArray, GPUArray]> = [];
  const outArrays = outs.map((b, j) => {
    const p = k.outs[j];
    if (b instanceof GPUArray) {
      if (!p.raw && (b.shape.length !== shape.length || b.shape.some((s, d) => s !== shape[d]))) {
        throw rangeError('ERR_SHAPE_MISMATCH', `${k.kernel}(): output "${p.name}" has shape (${b.shape.join(',')}); the broadcast shape is (${shape.join(',')})`);
      }
      results.push(b);
      // Partial overlap with an input: compute into a temporary, then copy.
      if (!p.raw && ins.some((x) => x instanceof GPUArray && overlaps(b, x))) {
        const t = GPUArray.allocate(shape, b.dtype, stream);
        temps.push([b, t]);
        return t;
      }
      return b;
    }
    const o = GPUArray.allocate(shape, outTypes[j], stream);
    results.push(o);
    return o;
  });
  const operands: Array<ArrayOperand | ScalarOperand> = [];
  const pushRaw = (x: GPUArray) => operands.push({ scalar: true, value: x.address }, { scalar: true, value: BigInt(x.size) });
  ins.forEach((b, j) => {
    if (k.ins[j].raw) pushRaw(b as GPUArray);
    else if (b instanceof GPUArray) operands.push(asOperand(b, shape));
    else {
      const c = spec.inputs[operands.length].compute, what = `${k.kernel}() input "${k.ins[j].name}"`;
      // A weak (plain) number must fit an integer compute type, as NumPy 2 requires; a Scalar is a cast.
      if (!b!.strong && (typeof b!.value === 'number' || typeof b!.value === 'bigint')) checkStorable(c, b!.value, what);
      operands.push({ scalar: true, value: coerce(c, b!.value, what) });
    }
  });
  const outOps: ArrayOperand[] = [];
  outArrays.forEach((o, j) => {
    if (k.outs[j].raw) pushRaw(o);
    else {
      outOps.push(asOperand(o, shape));
      if (k.reads[j] && outs[j] instanceof GPUArray) operands.push(asOperand(outs[j] as GPUArray, shape));
    }
  });
  try {
    runElementwise(spec, shape, outOps, operands, streamHandle(stream));
    for (const [dst, t] of temps) assign(dst, t, stream);
  } finally {
    for (const [, t] of temps) t.dispose();
  }
  return results.length === 1 ? results[0] : results;
}
