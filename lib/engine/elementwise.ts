/**
 * The elementwise engine: picks the kernel variant for the operands (contiguous and aligned →
 * vectorized; otherwise collapsed strided), compiles it once per signature, packs parameters
 * into a reusable buffer and launches with one native call.
 */
import { envNumber } from '../base/env';
import { DType } from '../base/dtype';
import { Complex, computeDType, fromBits16, isFloat16Like, toBits16 } from '../base/dtype';
import { generatedKernel } from '../cuda/modules';
import { collapseDims } from '../base/shape';
import { ElementwiseSpec, InnerMode, Variant, elementwiseSource } from './templates/elementwise';
import { ArgPacker } from '../cuda/args';
import { currentContext } from '../cuda/driver';
import type { DeviceAllocation } from '../cuda/memory';

/** An array operand as the engine sees it. */
export interface ArrayOperand {
  dtype: DType;
  shape: readonly number[];
  /** Byte strides, already broadcast to the launch shape. */
  strides: readonly number[];
  ptr: bigint;
  /** ptr modulo 16. */
  align16: number;
  /** The allocation `ptr` points into, when nodecuda owns it (recorded for other streams). */
  mem?: DeviceAllocation;
}

/** A scalar operand: passed by value in its compute dtype. */
export interface ScalarOperand {
  scalar: true;
  value: number | bigint | Complex | boolean;
}

// Launch shape of the contiguous/strided variants (NODECUDA_EW_BLOCK / NODECUDA_EW_VECTORS tune them).
const BLOCK = envNumber('NODECUDA_EW_BLOCK', 128, { min: 32, max: 1024, multipleOf: 32 });
const VECTORS_PER_THREAD = envNumber('NODECUDA_EW_VECTORS', 1, { min: 1, max: 8, oneOf: [1, 2, 4, 8] });
const INT32_MAX = 2 ** 31 - 1;
// Compiled kernels per spec object and variant key (specs are reused by their callers).
const kernelCache = new WeakMap<ElementwiseSpec, Map<string, { generation: number; ctx: number; fn: NativeAddon.FunctionHandle }>>();
const P = new ArgPacker(1024);

function isContiguous(a: ArrayOperand, shape: readonly number[]): boolean {
  let expect = a.dtype.bytes;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] !== 1 && a.strides[d] !== expect) return false;
    expect *= shape[d];
  }
  return true;
}

const vecBytes = (d: DType, e: number) => Math.min(16, d.bytes * e);

interface Choice { v: Variant; key: string; dims?: { shape: number[]; strides: number[][] } }

// The contiguous variants are few: one shared Choice object each (no per-call garbage).
const contiguousChoices = new Map<number, Choice>();

function contiguousChoice(e: number, wide: boolean): Choice {
  const k = e * 2 + (wide ? 1 : 0);
  let c = contiguousChoices.get(k);
  if (!c) {
    c = { v: { kind: 'contiguous', e, wide }, key: `c${e}${wide ? 'w' : ''}` };
    contiguousChoices.set(k, c);
  }
  return c;
}

function chooseVariant(arrays: ArrayOperand[], outs: number, shape: readonly number[], n: number, vectors = VECTORS_PER_THREAD): Choice {
  let maxBytes = 1;
  for (const a of arrays) maxBytes = Math.max(maxBytes, a.dtype.bytes);
  // 16-byte vectors for the widest operand (two for 1-byte types: more bytes in flight per thread).
  const e = Math.max(1, (16 * (maxBytes === 1 ? 2 : vectors)) / maxBytes);
  let contiguous = true;
  for (const a of arrays) {
    if (!isContiguous(a, shape) || a.align16 % vecBytes(a.dtype, e) !== 0) {
      contiguous = false;
      break;
    }
  }
  if (contiguous) return contiguousChoice(e, n > INT32_MAX);
  const elem = arrays.map((a) => a.strides.map((s) => s / a.dtype.bytes));
  const dims = collapseDims([...shape], elem);
  if (dims.shape.length === 0) {
    dims.shape = [1];
    dims.strides = dims.strides.map(() => [0]);
  }
  const nd = dims.shape.length;
  const innerLen = dims.shape[nd - 1];
  let es = e;
  while (es > 1 && innerLen % es !== 0) es /= 2;
  const inner: InnerMode[] = dims.strides.map((st, j) => {
    const s = st[nd - 1];
    if (s === 0) return 'zero';
    if (s !== 1 || es === 1) return 'any';
    const aligned = arrays[j].align16 % vecBytes(arrays[j].dtype, es) === 0 &&
      st.slice(0, -1).every((x) => x % es === 0);
    return aligned ? 'unit' : 'any';
  });
  // Transposed 2-d inputs (contiguous along dim 0) under a row-major output: shared-memory tiles.
  if (nd === 2 && dims.strides[0][1] === 1 && Math.ceil(dims.shape[0] / 32) <= 65535) {
    const tiledInputs = dims.strides.slice(outs).map((st) => st[0] === 1 && Math.abs(st[1]) > 1);
    if (tiledInputs.some(Boolean)) {
      let maxOff = n;
      for (const st of dims.strides) maxOff = Math.max(maxOff, Math.abs(st[0]) * dims.shape[0] + Math.abs(st[1]) * dims.shape[1]);
      const v: Variant = { kind: 'tiled', e: 1, wide: maxOff > INT32_MAX, ndim: 2, tiled: tiledInputs };
      return { v, key: variantKey(v), dims };
    }
  }
  let maxOff = n;
  for (const st of dims.strides) {
    let off = 0;
    st.forEach((s, d) => { off += Math.abs(s) * (dims.shape[d] - 1); });
    maxOff = Math.max(maxOff, off + 1);
  }
  const v: Variant = { kind: 'strided', e: es, wide: maxOff > INT32_MAX, ndim: nd, inner };
  return { v, key: variantKey(v), dims };
}

function variantKey(v: Variant): string {
  return `${v.kind}${v.e}${v.wide ? 'w' : ''}${v.ndim}${v.inner?.join('') ?? ''}${v.tiled?.join('') ?? ''}`;
}

function kernelFor(spec: ElementwiseSpec, v: Variant, key: string): NativeAddon.FunctionHandle {
  const { generation, id: ctx } = currentContext();
  let perSpec = kernelCache.get(spec);
  if (!perSpec) {
    perSpec = new Map();
    kernelCache.set(spec, perSpec);
  }
  const hit = perSpec.get(key);
  if (hit && hit.generation === generation && hit.ctx === ctx) return hit.fn;
  const { source, name } = elementwiseSource(spec, v);
  const fn = generatedKernel(source, name, spec.options);
  perSpec.set(key, { generation, ctx, fn });
  return fn;
}

function writeCompute(d: DType, value: ScalarOperand['value']): void {
  // Scalars travel in their compute type: float16/bfloat16 as float, complex as {re, im} of the part type.
  const t = computeDType(d);
  if (t.kind === 'b') {
    // Any nonzero value (NaN included) is true, as in NumPy.
    const nonzero = typeof value === 'object' ? value.re !== 0 || value.im !== 0 : value !== 0 && value !== 0n && value !== false;
    P.u8(nonzero ? 1 : 0);
    return;
  }
  let v: number | bigint | Complex = typeof value === 'boolean' ? (value ? 1 : 0) : value;
  if (t.kind === 'c' && typeof v !== 'object') v = { re: Number(v), im: 0 };
  if (t.kind !== 'c' && typeof v === 'object') v = v.re;
  if ((t.name === 'int64' || t.name === 'uint64') && typeof v === 'number') v = BigInt(Math.trunc(v));
  if (t.name !== 'int64' && t.name !== 'uint64' && typeof v === 'bigint') v = Number(v);
  // A float16/bfloat16 operand is a value of that dtype first (NumPy converts the scalar to the dtype), then float.
  if (isFloat16Like(d) && typeof v === 'number') v = fromBits16(d, toBits16(d, v));
  P.scalar(t, v, t.kind === 'c' ? t.bytes / 2 : t.align);
}

/**
 * Runs `spec` over `shape`: outputs and array inputs are ArrayOperands with strides broadcast to
 * `shape`; scalar inputs are ScalarOperands (their spec input has `scalar: true`).
 */
export function runElementwise(spec: ElementwiseSpec, shape: readonly number[], outs: ArrayOperand[],
  ins: Array<ArrayOperand | ScalarOperand>, stream: NativeAddon.StreamHandle | null): void {
  let n = 1;
  for (const s of shape) n *= s;
  if (n === 0) return;
  const arrays: ArrayOperand[] = outs.slice();
  for (const x of ins) if (!('scalar' in x)) arrays.push(x);
  const { v, key, dims } = chooseVariant(arrays, outs.length, shape, n, spec.vectors);
  const fn = kernelFor(spec, v, key);
  P.reset();
  for (const o of outs) P.ptr(o.ptr);
  for (let i = 0; i < ins.length; i++) {
    const x = ins[i];
    if ('scalar' in x) writeCompute(spec.inputs[i].compute, x.value);
    else P.ptr(x.ptr);
  }
  const wide = v.wide;
  if (dims) {
    for (const s of dims.shape) P.uidx(s, wide);
    for (const st of dims.strides) for (const s of st) P.idx(s, wide);
  }
  P.uidx(n, wide);
  // Memory of another stream than this one: its free must wait for this launch (memory.ts).
  for (const a of arrays) if (a.mem !== undefined && a.mem.stream_ !== stream) a.mem.useOn_(stream);
  if (v.kind === 'tiled') P.launch(fn, stream, Math.ceil(dims!.shape[1] / 32), Math.ceil(dims!.shape[0] / 32), 1, 32, 8, 1, 0, true);
  else P.launch(fn, stream, Math.ceil(Math.ceil(n / v.e) / BLOCK), 1, 1, BLOCK, 1, 1, 0, true);
}
