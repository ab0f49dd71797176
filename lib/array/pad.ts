/**
 * NumPy's pad: one gather kernel for every mode. Each output element finds its source element
 * axis by axis: inside the original area its own position, in a pad area an index from a small
 * per-axis table that the host fills exactly as NumPy's iterative algorithm fills the pad
 * (reflect/symmetric/wrap with pads wider than the axis repeat as NumPy's do, including its
 * non-periodic repetitions), or, in 'constant' mode, the constant of that axis and side (where
 * several axes are out of range, the last one's: NumPy pads the axes in order).
 */
import { Complex, DTYPES, Scalar, checkStorable } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { normalizeShape } from '../base/shape';
import { Stream, currentContext } from '../cuda/driver';
import { usedOn } from '../cuda/memory';
import { generatedKernel } from '../cuda/modules';
import { ArgPacker } from '../cuda/args';
import { GPUArray, arrayArg, filled, fromHost } from './gpuarray';
import { fill, parse } from './operators';
import { checkDevices } from './devices';

/** How pad() fills the pad area (NumPy's modes of the same names). */
export type PadMode = 'constant' | 'edge' | 'reflect' | 'symmetric' | 'wrap';

/**
 * Pad widths, NumPy's forms: `n` (every side of every axis), `[n]`, `[before, after]` (each
 * axis), `[[before, after]]`, or one pair per axis `[[b0, a0], [b1, a1], …]` (`[[n0], [n1], …]`:
 * n on both sides). Non-negative integers.
 */
export type PadWidth = number | readonly number[] | ReadonlyArray<readonly number[]>;

/** One constant of pad(): a JS or typed scalar, stored in the array's dtype as fill() stores it. */
export type PadScalar = number | bigint | boolean | Complex | Scalar;

/** pad()'s `constantValues`: a scalar, or per side and axis in PadWidth's forms. */
export type PadConstant = PadScalar | readonly PadScalar[] | ReadonlyArray<readonly PadScalar[]>;

/** Options of pad(). */
export interface PadOptions {
  /** How to fill the pad area (default 'constant'). */
  mode?: PadMode;
  /** 'constant' mode's values (default 0): a scalar, `[before, after]`, or one pair per axis. */
  constantValues?: PadConstant;
  /** Stream to run on (default: the legacy default stream). */
  stream?: Stream | null;
}

const MODES: readonly string[] = ['constant', 'edge', 'reflect', 'symmetric', 'wrap'];
const PAD_KEYS = ['mode', 'constantValues', 'stream'];
const INT32_MAX = 2 ** 31 - 1;

/**
 * @internal NumPy's _as_pairs: `x` as one [before, after] pair per axis of `nd`, each item read by
 * `item`. A value or `[v]` is (v, v) everywhere, `[b, a]` and `[[b, a]]` that pair everywhere,
 * `[[b0, a0], …]` (or `[[v0], …]`) one pair per axis; other shapes are RangeError ERR_SHAPE_MISMATCH.
 */
export function asPairs<T>(x: unknown, nd: number, what: string, item: (v: unknown) => T): Array<[T, T]> {
  const every = (p: [T, T]): Array<[T, T]> => Array.from({ length: nd }, () => p);
  const bad = () => rangeError('ERR_SHAPE_MISMATCH',
    `pad: ${what} must be a value, [before, after], or one [before, after] per axis (${nd} axes). Received ${describe(x)}`);
  if (!Array.isArray(x)) {
    const v = item(x);
    return every([v, v]);
  }
  const rows = Array.from(x as unknown[]); // a hole reads as undefined: refused by item()
  if (!rows.some(Array.isArray)) {
    const vs = rows.map(item);
    if (vs.length === 1) return every([vs[0], vs[0]]);
    if (vs.length === 2) return every([vs[0], vs[1]]);
    throw bad();
  }
  if (!rows.every(Array.isArray)) throw bad(); // ragged
  const m = rows.map((r) => Array.from(r as unknown[]).map(item));
  const cols = m[0].length;
  if (m.some((r) => r.length !== cols)) throw bad();
  if (m.length * cols === 1) return every([m[0][0], m[0][0]]);
  if (m.length === 1 && cols === 2) return every([m[0][0], m[0][1]]);
  if ((m.length !== 1 && m.length !== nd) || (cols !== 1 && cols !== 2)) throw bad();
  return Array.from({ length: nd }, (_, d) => {
    const r = m[m.length === 1 ? 0 : d];
    return [r[0], r[cols - 1]];
  });
}

function widthItem(v: unknown): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `pad: pad widths must be integers. Received ${describe(v)}`);
  }
  if (v < 0) throw rangeError('ERR_OUT_OF_RANGE', `pad: pad widths may not be negative. Received ${v}`);
  return v + 0; // -0 → 0
}

function constantItem(v: unknown): PadScalar {
  const p = parse(v, 'pad: constantValues');
  if (p.arr) throw typeError('ERR_INVALID_ARG_TYPE', 'pad: constantValues takes scalars, not GPUArrays');
  return v as PadScalar;
}

/**
 * @internal The source positions of the pad area of an axis of length n (≥ 1) padded by b and a,
 * as NumPy fills them: [left pad (b entries), right pad (a entries)]. 'constant' has no table.
 */
export function padTable(mode: Exclude<PadMode, 'constant'>, n: number, b: number, a: number): Float64Array {
  const t = new Float64Array(b + a);
  const len = b + n + a;
  // Position p of the padded axis: inside, its source index; in a pad area, the table's entry.
  const get = (p: number): number => (p < b ? t[p] : p < b + n ? p - b : t[p - n]);
  const set = (p: number, v: number): void => { t[p < b ? p : p - n] = v; };
  if (mode === 'edge' || n === 1) { // NumPy: a length-1 axis extends by its edge in every mode
    t.fill(0, 0, b);
    t.fill(n - 1, b);
    return t;
  }
  let left = b, right = a;
  if (mode === 'wrap') { // _set_wrap_both: chunks of whole periods of the original length
    while (left > 0 || right > 0) {
      const period = Math.floor((len - left - right) / n) * n;
      let nl = 0, nr = 0;
      if (left > 0) {
        const count = Math.min(period, left), from = left + period - count, to = left > period ? left - period : 0;
        for (let k = 0; k < count; k++) set(to + k, get(from + k));
        if (left > period) nl = left - period;
      }
      if (right > 0) {
        const count = Math.min(period, right), from = len - right - period, to = len - right;
        for (let k = 0; k < count; k++) set(to + k, get(from + k));
        if (right > period) nr = right - period;
      }
      left = nl;
      right = nr;
    }
    return t;
  }
  // _set_reflect_both: each round mirrors at most the valid area (less its edge for 'reflect').
  const edge = mode === 'symmetric' ? 1 : 0;
  while (left > 0 || right > 0) {
    const old = len - left - right - (1 - edge);
    if (left > 0) {
      const count = Math.min(old, left), start = left - edge + count;
      for (let k = 0; k < count; k++) set(left - count + k, get(start - k));
      left -= count;
    }
    if (right > 0) {
      const count = Math.min(old, right), start = len - right + edge - 2;
      for (let k = 0; k < count; k++) set(len - right + k, get(start - k));
      right -= count;
    }
  }
  return t;
}

/**
 * @internal The pad kernel for elements of `bytes` bytes (moved as bits: one kernel serves every
 * dtype of that size), `nd` collapsed dimensions, 64-bit element indices when `wide`. Parameters:
 * the C-contiguous output, the source at its element 0, the concatenated int64 tables, the
 * constants (2 per dimension), the per-dimension layout, the element count.
 */
export function padSource(bytes: number, nd: number, wide: boolean): { source: string; name: string } {
  const name = `nc_pad_b${bytes}_d${nd}${wide ? 'w' : ''}`;
  const elem = ({ 1: 'unsigned char', 2: 'unsigned short', 4: 'unsigned int', 8: 'unsigned long long' } as Record<number, string>)[bytes]
    ?? 'nc_pad_b16';
  const I = wide ? 'unsigned long long' : 'unsigned int';
  const source = `#ifndef NC_PAD_B16
#define NC_PAD_B16
struct alignas(16) nc_pad_b16 { unsigned long long lo, hi; };
#endif
struct ${name}_p { unsigned long long shape[${nd}]; long long before[${nd}]; long long len[${nd}]; long long table[${nd}];
  long long stride[${nd}]; };
extern "C" __global__ void ${name}(${elem} *__restrict__ dst, const ${elem} *__restrict__ src, const long long *__restrict__ tables,
    const ${elem} *__restrict__ cv, const ${name}_p p, const ${I} n) {
  for (${I} i = (${I})blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (${I})gridDim.x * blockDim.x) {
    ${I} rem = i;
    long long off = 0;
    int k = -1; // the constant, for an element out of range on some axis (the last such axis's)
#pragma unroll
    for (int d = ${nd - 1}; d >= 0; d--) {
      const ${I} len = (${I})p.shape[d];
      const long long c = (long long)(rem % len);
      rem /= len;
      const long long t = c - p.before[d];
      long long s = t;
      if (t < 0 || t >= p.len[d]) s = p.table[d] < 0 ? (t < 0 ? -1 : -2) : tables[p.table[d] + (t < 0 ? c : c - p.len[d])];
      if (s >= 0) off += s * p.stride[d];
      else if (k < 0) k = 2 * d + (int)(-1 - s);
    }
    dst[i] = k < 0 ? src[off] : cv[k];
  }
}`;
  return { source, name };
}

/** @internal One dimension of the pad kernel: output length, pad before, source length and element stride, pad table. */
export interface PadDim { axis: number; out: number; before: number; len: number; stride: number; table: Float64Array | null }

const P = new ArgPacker(512);
// Loaded kernels by name, for the context they were loaded in (a reset or another device loads again).
const kernels = new Map<string, { generation: number; ctx: number; fn: NativeAddon.FunctionHandle }>();

function padKernel(bytes: number, nd: number, wide: boolean): NativeAddon.FunctionHandle {
  const { generation, id: ctx } = currentContext();
  const key = `${bytes}:${nd}:${wide}`;
  const hit = kernels.get(key);
  if (hit && hit.generation === generation && hit.ctx === ctx) return hit.fn;
  const { source, name } = padSource(bytes, nd, wide);
  const fn = generatedKernel(source, name);
  kernels.set(key, { generation, ctx, fn });
  return fn;
}

/**
 * The array padded (NumPy's pad): `padWidth` elements before and after each axis (NumPy's forms:
 * `n`, `[before, after]`, or one pair per axis), filled by `mode`: 'constant' (default;
 * `constantValues`, default 0, a scalar or per side and axis, stored in `a`'s dtype as fill()
 * stores it: a JS integer that does not fit is RangeError ERR_OUT_OF_RANGE), 'edge' (the edge
 * element repeated), 'reflect' (mirrored about the edge element), 'symmetric' (mirrored with the
 * edge repeated) or 'wrap' (the other end's elements). Pads wider than the axis repeat the
 * reflection or wrap as NumPy does; a length-1 axis extends by its edge in every mode. Any dtype
 * and layout; a new C-contiguous array, one kernel. An empty axis extends only in 'constant' mode
 * (RangeError ERR_INVALID_ARG_VALUE otherwise, NumPy's ValueError). The mode may also come third.
 * @example
 * gpuarray.pad(v, 2);                                      // [1,2,3] → [0,0,1,2,3,0,0]
 * gpuarray.pad(v, [1, 2], { mode: 'reflect' });           // [2,1,2,3,2,1]
 * gpuarray.pad(img, [[1, 1], [2, 2]], 'edge');            // rows by 1, columns by 2
 * gpuarray.pad(m, 1, { constantValues: [[-1, -2], [5, 6]] });
 */
export function pad(a: GPUArray, padWidth: PadWidth, modeOrOpts?: PadMode | PadOptions, opts?: PadOptions): GPUArray {
  arrayArg(a, 'a');
  if (typeof modeOrOpts === 'string') {
    opts = { ...checkedOptions(opts, 'pad', ['constantValues', 'stream']), mode: modeOrOpts };
  } else {
    if (opts !== undefined) throw typeError('ERR_INVALID_ARG_TYPE', 'pad: options come third (or fourth after a mode string)');
    opts = modeOrOpts;
  }
  const { mode = 'constant', constantValues, stream } = checkedOptions(opts, 'pad', PAD_KEYS);
  if (typeof mode !== 'string' || !MODES.includes(mode)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `pad: mode must be one of ${MODES.map((m) => `'${m}'`).join(', ')}. Received ${describe(mode)}`);
  }
  if (mode !== 'constant' && constantValues !== undefined) {
    throw typeError('ERR_INVALID_ARG_VALUE', `pad: constantValues is for mode 'constant', not '${mode}'`);
  }
  const nd = a.ndim;
  const widths = asPairs(padWidth, nd, 'padWidth', widthItem);
  const values = asPairs(constantValues ?? 0, nd, 'constantValues', constantItem);
  for (const [b, c] of values) {
    for (const v of [b, c]) if (typeof v === 'number' || typeof v === 'bigint') checkStorable(a.dtype, v, 'pad constant');
  }
  checkDevices('pad', [a]);
  const shape = normalizeShape(a.shape.map((n, d) => widths[d][0] + n + widths[d][1]), 'pad result');
  if (mode !== 'constant') {
    a.shape.forEach((n, d) => {
      if (n === 0 && (widths[d][0] || widths[d][1])) {
        throw rangeError('ERR_INVALID_ARG_VALUE', `pad: cannot extend the empty axis ${d} in mode '${mode}' (only 'constant')`);
      }
    });
  }
  if (widths.every(([b, c]) => b === 0 && c === 0)) return a.copy({ stream });
  const out = GPUArray.allocate(shape, a.dtype, stream);
  if (out.size === 0) return out;
  return filled(out, () => launchPad(out, a, widths, values, mode as PadMode, stream));
}

/**
 * @internal The kernel's dimensions for an array of `shape` and element `strides` padded by
 * `widths` in `mode`: padded axes keep their own (with their table); the others drop when of
 * length 1 and merge with an unpadded neighbour they are contiguous with. At least one.
 */
export function padDims(shape: readonly number[], strides: readonly number[], widths: ReadonlyArray<readonly [number, number]>,
  mode: PadMode): PadDim[] {
  const dims: PadDim[] = [];
  shape.forEach((n, d) => {
    const [b, c] = widths[d];
    const padded = b > 0 || c > 0;
    if (!padded && n === 1) return;
    const last = dims[dims.length - 1];
    if (!padded && last && last.table === null && last.out === last.len && last.stride === strides[d] * n) {
      last.out *= n;
      last.len *= n;
      last.stride = strides[d];
      return;
    }
    const table = padded && mode !== 'constant' ? padTable(mode, n, b, c) : null;
    dims.push({ axis: d, out: b + n + c, before: b, len: n, stride: strides[d], table });
  });
  if (dims.length === 0) dims.push({ axis: -1, out: 1, before: 0, len: 1, stride: 0, table: null });
  return dims;
}

function launchPad(out: GPUArray, a: GPUArray, widths: Array<[number, number]>, values: Array<[PadScalar, PadScalar]>,
  mode: PadMode, stream: Stream | null | undefined): void {
  const dims = padDims(a.shape, a.strides.map((s) => s / a.dtype.bytes), widths, mode);
  const temps: GPUArray[] = [];
  try {
    let total = 0;
    for (const dim of dims) total += dim.table?.length ?? 0;
    let tables: GPUArray | null = null;
    if (total > 0) {
      const h = new Uint32Array(2 * total); // int64 entries as two 32-bit halves
      let o = 0;
      for (const dim of dims) {
        for (const v of dim.table ?? []) {
          const hi = Math.floor(v / 2 ** 32);
          h[o++] = v - hi * 2 ** 32;
          h[o++] = hi >>> 0;
        }
      }
      temps.push((tables = fromHost(h, [total], DTYPES.int64, stream)));
    }
    let cv: GPUArray | null = null;
    if (mode === 'constant') {
      temps.push((cv = GPUArray.allocate([2 * dims.length], a.dtype, stream)));
      const used = dims.flatMap((dim) => (dim.axis < 0 || dim.out === dim.len ? [] : values[dim.axis])); // padded axes'
      if (used.every((v) => v === used[0])) {
        fill(cv, used[0] ?? 0, stream);
      } else {
        dims.forEach((dim, k) => dim.out > dim.len && values[dim.axis].forEach((v, side) => fill(cv!.index(2 * k + side), v, stream)));
      }
    }
    const n = out.size, wide = n > INT32_MAX;
    const fn = padKernel(a.dtype.bytes, dims.length, wide);
    const sh = usedOn(stream, [out, a, tables, cv]);
    P.reset().ptr(out.address).ptr(a.address).ptr(tables?.address ?? 0n).ptr(cv?.address ?? 0n);
    for (const dim of dims) P.u64n(dim.out);
    for (const dim of dims) P.i64(dim.before);
    for (const dim of dims) P.i64(dim.len);
    let at = 0;
    for (const dim of dims) {
      P.i64(dim.table ? at : -1);
      at += dim.table?.length ?? 0;
    }
    for (const dim of dims) P.i64(dim.stride);
    P.uidx(n, wide);
    P.launch(fn, sh, Math.min(Math.ceil(n / 256), INT32_MAX), 1, 1, 256, 1, 1, 0, true);
  } finally {
    for (const t of temps) t.dispose(); // stream-ordered: after the kernel
  }
}
