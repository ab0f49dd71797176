/**
 * GPUArray operators: NumPy broadcasting and promotion over the elementwise engine, with
 * `{ out, stream }` (aliasing-safe), scalar operands and reverse forms. Also the one path from a
 * ufunc row (ufunc.ts, cumath.ts) to a kernel: specFor() and elementwise().
 */
import { Complex, DTYPES, DType, Scalar, checkStorable } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { GPUArray, filled } from './gpuarray';
import { registerArrayMethods } from './methods';
import { ArrayOperand, ScalarOperand, runElementwise } from '../engine/elementwise';
import { Operand as OperandType, canCast, resultType } from '../base/promote';
import { broadcastShapes, broadcastStrides } from '../base/shape';
import { ElementwiseSpec, InputSpec } from '../engine/templates/elementwise';
import { UFUNC_PREAMBLE, UfuncDef, resolve, ufunc } from './ufunc';
import { checkDevices } from './devices';
import { checkWritable, overlaps } from './overlap';

/** An operand: an array, a JS scalar (weak, like a Python scalar) or a typed Scalar. */
export type Operand = GPUArray | number | bigint | boolean | Complex | Scalar;

const OP_OPTIONS = ['out', 'stream'];

/** Options every operator takes. */
export interface OpOptions {
  /** Write the result here (shape must match; dtype castable 'same_kind'). May alias an input. */
  out?: GPUArray;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

/** An operand as the elementwise path takes it. @internal */
export interface Parsed {
  arr?: GPUArray;
  value?: number | bigint | boolean | Complex;
  strong?: DType; // typed Scalar
}

/** Reads an operand (`name` prefixes the TypeError). @internal */
export function parse(x: unknown, name: string): Parsed {
  if (x instanceof GPUArray) return { arr: x.check() };
  if (x instanceof Scalar) return { value: x.value, strong: x.dtype };
  if (typeof x === 'number' || typeof x === 'bigint' || typeof x === 'boolean') return { value: x };
  if (typeof x === 'object' && x !== null && typeof (x as Complex).re === 'number') return { value: x as Complex };
  throw typeError('ERR_INVALID_ARG_TYPE', `${name}: operands must be GPUArrays or scalars. Received ${describe(x)}`);
}

/** The operand's dtype, or a weak scalar's value, for promotion. @internal */
export function operandType(p: Parsed): DType | number | bigint | boolean | Complex {
  return p.arr ? p.arr.dtype : p.strong ?? p.value!;
}

function sameShape(a: readonly number[], b: readonly number[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** An array as the engine's operand over `shape` (strides broadcast). @internal */
export function asOperand(a: GPUArray, shape: readonly number[]): ArrayOperand {
  const strides = sameShape(a.shape, shape) ? a.strides : broadcastStrides(a.shape, a.strides, shape);
  return { dtype: a.dtype, shape, strides, ptr: a.address, align16: a.align16, mem: a.alloc };
}

/** The kernel of a call: a ufunc row (its kernel name, preamble, vectors), or the name of an internal one (UFUNC_PREAMBLE). */
export type KernelOf = Pick<UfuncDef, 'kernel' | 'preamble' | 'vectors64'> | string;

// Specs are reused (the engine caches compiled kernels per spec object).
const specs = new Map<string, ElementwiseSpec>();

/**
 * The one spec builder of the elementwise operations: inputs (arrays or scalars) with their compute
 * dtypes, outputs stored as `stored` and computed as `outs`. @internal
 */
export function specFor(k: KernelOf, body: string, inputs: Parsed[], computes: DType[], stored: DType[], outs: DType[]): ElementwiseSpec {
  const name = typeof k === 'string' ? k : k.kernel;
  let key = `${name}|${body}`;
  for (const d of stored) key += `|${d.name}`;
  for (const d of outs) key += `|${d.name}`;
  for (let i = 0; i < inputs.length; i++) key += `|${inputs[i].arr ? inputs[i].arr!.dtype.name : 's'}:${computes[i].name}`;
  let spec = specs.get(key);
  if (!spec) {
    spec = {
      name, body, preamble: typeof k === 'string' ? UFUNC_PREAMBLE : k.preamble,
      inputs: inputs.map((p, i): InputSpec => ({ dtype: p.arr ? p.arr.dtype : computes[i], compute: computes[i], scalar: !p.arr })),
      outputs: stored.map((d, i) => ({ dtype: d, compute: outs[i] })),
    };
    const vectors = typeof k === 'string' ? undefined : k.vectors64;
    // e.g. float64 math: two vectors per thread (H200, exp float64 2^28: 3.81 → 4.22 TB/s; copy 4.23).
    if (vectors && computes.some((d) => d.name === 'float64')) spec.vectors = vectors;
    specs.set(key, spec);
  }
  return spec;
}

/**
 * Runs an elementwise kernel: inputs (arrays or scalars) with their compute dtypes, one output
 * of `outDtype`/`outCompute` over the broadcast shape. Handles `out` (checks and aliasing).
 * @internal
 */
export function elementwise(k: KernelOf, body: string, inputs: Parsed[], computes: DType[], outCompute: DType,
  outDtype: DType, opts: OpOptions = {}, cache?: Map<string, ElementwiseSpec>): GPUArray {
  const name = typeof k === 'string' ? k : k.kernel;
  // Plain loops (no closures): this is the path of every small operator call.
  const given = opts.out; // read once (a getter may answer otherwise on a second read)
  const arrays: GPUArray[] = [];
  for (const p of inputs) if (p.arr) arrays.push(p.arr);
  checkDevices(name, arrays, given instanceof GPUArray ? given : undefined);
  // Inputs broadcast against each other and against `out`, as in NumPy.
  const shapes: Array<readonly number[]> = [];
  for (const a of arrays) shapes.push(a.shape);
  if (given instanceof GPUArray) shapes.push(given.shape);
  let same = true;
  for (const x of shapes) same &&= sameShape(x, shapes[0]);
  const shape = same ? shapes[0] : broadcastShapes(...shapes);
  let out = given;
  let result: GPUArray;
  if (out !== undefined) {
    if (!(out instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${name}: out must be a GPUArray. Received ${describe(out)}`);
    out.check();
    if (!sameShape(out.shape, shape)) {
      throw rangeError('ERR_SHAPE_MISMATCH', `${name}: out has shape (${out.shape.join(',')}); the result has shape (${shape.join(',')})`);
    }
    if (!canCast(outDtype, out.dtype, 'same_kind')) {
      throw typeError('ERR_INVALID_DTYPE', `${name}: cannot store a ${outDtype.name} result in a ${out.dtype.name} out array (same_kind casting)`);
    }
    checkWritable(out, name);
    result = out;
    let overlap = false;
    for (const a of arrays) overlap ||= overlaps(out, a);
    if (overlap) out = GPUArray.allocate(shape, out.dtype, opts.stream);
  } else {
    out = GPUArray.allocate(shape, outDtype, opts.stream);
    result = out;
  }
  try {
    let spec = cache?.get(out.dtype.name);
    if (!spec) {
      spec = specFor(k, body, inputs, computes, [out.dtype], [outCompute]);
      cache?.set(out.dtype.name, spec);
    }
    const ins: Array<ArrayOperand | ScalarOperand> = [];
    for (const p of inputs) ins.push(p.arr ? asOperand(p.arr, shape) : { scalar: true, value: p.value! });
    runElementwise(spec, shape, [asOperand(out, shape)], ins, streamHandle(opts.stream));
    if (out !== result) {
      assign(result, out, opts.stream);
      out.dispose();
    }
  } catch (e) {
    if (out !== given) out.dispose(); // this call's result or overlap temporary; never the caller's out
    throw e;
  }
  return result;
}

const COMPARISONS = new Set(['eq', 'ne', 'lt', 'le', 'gt', 'ge']);
const SYMBOLS: Record<string, string> = { eq: '==', ne: '!=', lt: '<', le: '<=', gt: '>', ge: '>=' };
const SIGNED_BELOW = new Set(['ne', 'lt', 'le']); // s OP u is true for a negative s
const UNSIGNED_ABOVE = new Set(['ne', 'gt', 'ge']); // u OP s is true for a negative s
const INT64_MIN = -(2n ** 63n), INT64_MAX = 2n ** 63n - 1n, UINT64_MAX = 2n ** 64n - 1n;

/** 'i' or 'u' for an integer operand (a weak one by its range, signature(): int64 or else uint64), else null. */
function intKind(p: Parsed): 'i' | 'u' | null {
  const d = p.arr?.dtype ?? p.strong;
  if (d) return d.kind === 'i' || d.kind === 'u' ? d.kind : null;
  const sig = signature(p);
  return sig === '~i' ? 'i' : sig === '~u' ? 'u' : null;
}

/**
 * A signed against an unsigned integer whose common type is float64 (int64 against uint64, or a
 * weak integer above int64 against an int64 array): compared exactly, each in its own 64-bit type
 * (NumPy ≥ 1.25), not as two doubles that round above 2^53.
 */
function mixedSignCompare(name: string, parsed: Parsed[]): { body: string; computes: DType[] } | null {
  const [k0, k1] = parsed.map(intKind);
  if (!k0 || !k1 || k0 === k1) return null;
  const sym = SYMBOLS[name];
  const [s, below, test] = k0 === 'i'
    ? ['x0', SIGNED_BELOW.has(name), `(unsigned long long)x0 ${sym} x1`]
    : ['x1', UNSIGNED_ABOVE.has(name), `x0 ${sym} (unsigned long long)x1`];
  return { body: `r0 = ${s} < 0 ? ${below} : (${test});`, computes: [k0, k1].map((k) => (k === 'i' ? DTYPES.int64 : DTYPES.uint64)) };
}

/**
 * A comparison of integers (arrays or typed scalars) with a weak integer beyond int64 and uint64
 * (2n ** 64n, -(2n ** 63n) - 1n, 1e30) compares it as ±2^65, a double beyond every 64-bit integer
 * even once they are rounded to doubles (2^64 - 1 becomes 2^64): the same answer, exact. Against
 * a float or complex operand the value itself is compared (it is not clamped).
 */
function clampWeak(name: string, parsed: Parsed[]): void {
  if (!COMPARISONS.has(name)) return;
  let wide = -1;
  for (let i = 0; i < parsed.length; i++) {
    const p = parsed[i];
    const d = p.arr?.dtype ?? p.strong;
    if (d) {
      if (d.kind !== 'i' && d.kind !== 'u') return;
    } else if (signature(p) === '~x') {
      wide = i;
    }
  }
  if (wide < 0) return;
  const v = parsed[wide].value as number | bigint;
  parsed[wide] = { value: v > 0 ? 2 ** 65 : -(2 ** 65) };
}

/**
 * NumPy 2 promotion; for comparisons a weak integer outside the array's integer range does not
 * raise (NumPy 2 answers such comparisons exactly): they are done in int64, uint64 or float64.
 */
function promoteFor(name: string, types: OperandType[]): DType {
  try {
    return resultType(...types);
  } catch (e) {
    if (!COMPARISONS.has(name) || (e as { code?: string }).code !== 'ERR_OUT_OF_RANGE') throw e;
    const weak = (t: OperandType) => typeof t !== 'object' || 're' in t; // a JS value, not a dtype
    const ints = types.filter(weak).map((t) => BigInt(t as number | bigint));
    const fits = (lo: bigint, hi: bigint) => ints.every((v) => v >= lo && v <= hi);
    const wide = fits(-(2n ** 63n), 2n ** 63n - 1n) ? DTYPES.int64 : fits(0n, 2n ** 64n - 1n) ? DTYPES.uint64 : DTYPES.float64;
    return resultType(...types.map((t) => (weak(t) ? wide : t)));
  }
}

interface Plan {
  body: string;
  computes: DType[];
  outDt: DType;
  /** The operands' common dtype the plan was made for (promoteFor). */
  promoted: DType;
  /**
   * A weak integer scalar takes part and the common dtype is an integer one, which its value may
   * change (int8 with 300): the plan is checked against the call's promotion before reuse.
   */
  checkRange: boolean;
  /** Specs by output dtype (operand kinds are fixed by the plan's key). */
  specs: Map<string, ElementwiseSpec>;
}

// Type resolution per operator and operand types (dtype names, or the kind of weak scalar): a
// tree of maps keyed by the operator, then each operand's signature (no key string per call).
interface PlanNode { next: Map<string, PlanNode>; plan?: Plan }
const plans: PlanNode = { next: new Map() };

function planNode(name: string, parsed: Parsed[]): PlanNode {
  let node = plans;
  for (let i = -1; i < parsed.length; i++) {
    const k = i < 0 ? name : signature(parsed[i]);
    let child = node.next.get(k);
    if (!child) node.next.set(k, (child = { next: new Map() }));
    node = child;
  }
  return node;
}

/**
 * An operand's part of a plan's key: its dtype, or the kind of a weak scalar. Weak integers are
 * keyed by range (int64 `~i`, above it up to uint64 `~u`, beyond both `~x`): a comparison's plan
 * (exact mixed-sign, or float64) depends on it, not on the value within it.
 */
function signature(p: Parsed): string {
  if (p.arr) return p.arr.dtype.name;
  if (p.strong) return p.strong.name;
  const v = p.value;
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) return '~f';
    return v >= -(2 ** 63) && v < 2 ** 63 ? '~i' : v >= 0 && v < 2 ** 64 ? '~u' : '~x';
  }
  if (typeof v === 'bigint') return v >= INT64_MIN && v <= INT64_MAX ? '~i' : v >= 0n && v <= UINT64_MAX ? '~u' : '~x';
  return typeof v === 'boolean' ? '~b' : '~c';
}

const WEAK_INTS = new Set(['~i', '~u', '~x']);

function plan(name: string, parsed: Parsed[], uncached = false): Plan {
  const node = uncached ? undefined : planNode(name, parsed);
  let pl = node?.plan;
  if (!pl) {
    const { body, computes, outs, promoted } = resolve(ufunc(name), parsed.map(operandType), false, (ts) => promoteFor(name, ts));
    const weakInt = parsed.some((p) => WEAK_INTS.has(signature(p)));
    const checkRange = weakInt && (promoted.kind === 'i' || promoted.kind === 'u');
    const exact = COMPARISONS.has(name) && promoted === DTYPES.float64 ? mixedSignCompare(name, parsed) : null;
    pl = { body: exact?.body ?? body, computes: exact?.computes ?? computes, outDt: outs[0], promoted, checkRange, specs: new Map() };
    if (node) node.plan = pl; // an exact plan holds for every weak integer of its range (the key's)
  } else if (pl.checkRange && promoteFor(name, parsed.map(operandType)) !== pl.promoted) {
    return plan(name, parsed, true); // this weak integer needs another type: no cache
  }
  return pl;
}

/**
 * Applies the operator `name` (see ufunc.ts) with NumPy promotion and broadcasting.
 * @example
 * gpuarray.apply('add', [a, 1]);
 */
export function apply(name: string, operands: unknown[], opts?: OpOptions): GPUArray {
  opts = checkedOptions(opts, name, OP_OPTIONS); // NumPy's where, dtype, casting: refused, not dropped
  const def = ufunc(name);
  if (operands.length !== def.nin) throw typeError('ERR_INVALID_ARG_COUNT', `${name} takes ${def.nin} operand(s)`);
  const parsed = operands.map((x) => parse(x, name));
  if (!parsed.some((p) => p.arr)) throw typeError('ERR_INVALID_ARG_TYPE', `${name}: at least one operand must be a GPUArray`);
  clampWeak(name, parsed);
  const pl = plan(name, parsed);
  return elementwise(def, pl.body, parsed, pl.computes, pl.outDt, pl.outDt, opts, pl.specs);
}

/** Copies `src` into `dst` (broadcasting src), converting dtype. @internal */
export function assign(dst: GPUArray, src: GPUArray, stream?: Stream | null): void {
  const shape = broadcastShapes(dst.shape, src.shape);
  if (shape.length !== dst.shape.length || shape.some((n, i) => n !== dst.shape[i])) {
    throw rangeError('ERR_SHAPE_MISMATCH', `cannot assign shape (${src.shape.join(',')}) to shape (${dst.shape.join(',')})`);
  }
  checkWritable(dst, 'set()');
  if (overlaps(dst, src)) { // x[1:] = x[:-1], x = x[::-1], m = m.T: the source is read whole first
    const tmp = copyOf(src, stream);
    try {
      assign(dst, tmp, stream);
    } finally {
      tmp.dispose();
    }
    return;
  }
  const spec = specFor('assign', 'r0 = x0;', [{ arr: src }], [src.dtype], [dst.dtype], [src.dtype]);
  runElementwise(spec, shape, [asOperand(dst, shape)], [asOperand(src, shape)], streamHandle(stream));
}

function copyOf(src: GPUArray, stream?: Stream | null, dt: DType = src.dtype): GPUArray {
  return filled(GPUArray.allocate(src.shape, dt, stream), (out) => assign(out, src, stream));
}

/** Fills `a` with one value (converted to its dtype). @internal */
export function fill(a: GPUArray, value: unknown, stream?: Stream | null): GPUArray {
  const p = parse(value, 'fill');
  if (p.arr) throw typeError('ERR_INVALID_ARG_TYPE', 'fill() takes a scalar');
  // A JS number/bigint is weak (NumPy: a Python scalar): out of an integer dtype's range → RangeError.
  if (!p.strong && (typeof p.value === 'number' || typeof p.value === 'bigint')) checkStorable(a.dtype, p.value, 'fill value');
  elementwise('fill', 'r0 = x0;', [p], [a.dtype], a.dtype, a.dtype, { out: a, stream });
  return a;
}

const BINARY = ['add', 'sub', 'mul', 'div', 'pow', 'mod', 'floorDiv', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and',
  'or', 'xor', 'shl', 'shr', 'maximum', 'minimum', 'logicalAnd', 'logicalOr', 'logicalXor'] as const;
const UNARY = ['neg', 'abs', 'not', 'logicalNot'] as const;

type Binary = (typeof BINARY)[number];
type Unary = (typeof UNARY)[number];

registerArrayMethods({ apply, fill, copyOf, assign });

/**
 * The two-operand operators in function form, `gpuarray.add(a, b, opts?)`: either operand may be a
 * JS or typed scalar, at least one must be a GPUArray; shapes broadcast and dtypes promote as in
 * NumPy 2; `opts.out` receives the result (it may alias an input), `opts.stream` queues the kernel.
 */
export interface BinaryFunctions extends Record<Binary, (a: Operand, b: Operand, opts?: OpOptions) => GPUArray> {
  /** Elementwise `a + b` (bool: logical or); integers wrap. @example gpuarray.add(a, 1) */
  add: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a - b`; integers wrap; bool is a TypeError (use logicalXor). @example gpuarray.sub(10, a) */
  sub: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a * b` (bool: logical and); integers wrap. @example gpuarray.mul(a, b) */
  mul: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise true division `a / b` (integers and bool give float64). @example gpuarray.div(a, 2) */
  div: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /**
   * Elementwise floor division `a // b` with Python's signs (`-7 // 2 === -4`); an integer divisor
   * of 0 gives 0; bool computes as int8. Not for complex.
   * @example gpuarray.floorDiv(a, 2)
   */
  floorDiv: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /**
   * Elementwise remainder `a % b` with the sign of `b` (Python's `%`: `-7 % 2 === 1`); an integer
   * divisor of 0 gives 0, a float one NaN; bool computes as int8. Not for complex.
   * @example gpuarray.mod(a, 3)
   */
  mod: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /**
   * Elementwise `a ** b`; an integer base to a negative integer power gives 0 (bases 1 and -1
   * excepted); bool computes as int8.
   * @example gpuarray.pow(a, 2)
   */
  pow: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise maximum (NaN propagates; complex orders by real part first). @example gpuarray.maximum(a, 0) */
  maximum: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise minimum (NaN propagates; complex orders by real part first). @example gpuarray.minimum(a, b) */
  minimum: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a == b` (bool). @example gpuarray.eq(a, 0) */
  eq: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a != b` (bool). @example gpuarray.ne(a, b) */
  ne: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a < b` (bool). @example gpuarray.lt(a, 0) */
  lt: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a <= b` (bool). @example gpuarray.le(a, b) */
  le: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a > b` (bool). @example gpuarray.gt(a, 0) */
  gt: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise `a >= b` (bool). @example gpuarray.ge(a, b) */
  ge: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise bitwise and of integers (logical and for bool). @example gpuarray.and(flags, 0xff) */
  and: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise bitwise or of integers (logical or for bool). @example gpuarray.or(a, b) */
  or: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise bitwise xor of integers (logical xor for bool). @example gpuarray.xor(a, b) */
  xor: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /**
   * Elementwise left shift `a << b` of integers (bool computes as int8); a count of at least the bit
   * width, or a negative one, gives 0.
   * @example gpuarray.shl(a, 2)
   */
  shl: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /**
   * Elementwise right shift `a >> b` of integers (arithmetic for signed ones; bool computes as int8);
   * a count of at least the bit width, or a negative one, gives 0 (-1 for a negative `a`).
   * @example gpuarray.shr(a, 1)
   */
  shr: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise logical and of any dtypes (nonzero is true) → bool. @example gpuarray.logicalAnd(a.gt(0), a.lt(1)) */
  logicalAnd: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise logical or of any dtypes (nonzero is true) → bool. @example gpuarray.logicalOr(a.lt(-1), a.gt(1)) */
  logicalOr: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise logical xor of any dtypes (nonzero is true) → bool. @example gpuarray.logicalXor(a, b) */
  logicalXor: (a: Operand, b: Operand, opts?: OpOptions) => GPUArray;
}

/**
 * The one-operand operators in function form, `gpuarray.neg(a, opts?)`: `a` must be a GPUArray;
 * `opts.out` and `opts.stream` as for the two-operand ones.
 */
export interface UnaryFunctions extends Record<Unary, (a: Operand, opts?: OpOptions) => GPUArray> {
  /** Elementwise negation `-a`; unsigned integers wrap; bool is a TypeError (use logicalNot). @example gpuarray.neg(a) */
  neg: (a: Operand, opts?: OpOptions) => GPUArray;
  /**
   * Elementwise absolute value, of the input's dtype (complex: the magnitude, as float32/float64);
   * the most negative integer stays negative.
   * @example gpuarray.abs(a)
   */
  abs: (a: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise bitwise not `~a` of integers (logical not for bool). @example gpuarray.not(mask) */
  not: (a: Operand, opts?: OpOptions) => GPUArray;
  /** Elementwise logical not of any dtype (zero is false) → bool. @example gpuarray.logicalNot(a) */
  logicalNot: (a: Operand, opts?: OpOptions) => GPUArray;
}

/** Function forms of the two-operand operators: gpuarray.add(a, b, opts) and friends. */
export const binaryFunctions: BinaryFunctions = Object.fromEntries(BINARY.map((name) =>
  [name, (a: Operand, b: Operand, opts?: OpOptions) => apply(name, [a, b], opts)])) as
  Record<Binary, (a: Operand, b: Operand, opts?: OpOptions) => GPUArray>;
/** Function forms of the one-operand operators: gpuarray.neg(a, opts) and friends. */
export const unaryFunctions: UnaryFunctions = Object.fromEntries(UNARY.map((name) =>
  [name, (a: Operand, opts?: OpOptions) => apply(name, [a], opts)])) as Record<Unary, (a: Operand, opts?: OpOptions) => GPUArray>;

/**
 * Elementwise choice: `x` where `cond` is nonzero, else `y` (broadcast).
 * @example
 * gpuarray.where(a.gt(0), a, 0);
 */
export function where(cond: Operand, x: Operand, y: Operand, opts?: OpOptions): GPUArray {
  return apply('where', [cond, x, y], opts);
}

/**
 * PyCUDA's if_positive: `then` where `crit > 0`, else `otherwise`.
 * @example
 * gpuarray.ifPositive(a, a, a.neg());
 */
export function ifPositive(crit: GPUArray, then: Operand, otherwise: Operand, opts?: OpOptions): GPUArray {
  const cond = apply('gt', [crit, 0], { stream: opts?.stream });
  try {
    return apply('where', [cond, then, otherwise], opts);
  } finally {
    cond.dispose();
  }
}
