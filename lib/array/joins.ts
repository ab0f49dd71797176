/**
 * Operations that move whole blocks: concatenate and stack (through strided assignment into
 * views), take (gather along an axis) and put (scatter into the flattened array).
 */
import { DTYPES } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { Stream, streamHandle } from '../cuda/driver';
import { useOn } from '../cuda/memory';
import { GPUArray, arrayArg } from './gpuarray';
import { generatedKernel } from '../cuda/modules';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { assign } from './operators';
import { resultType } from '../base/promote';
import { normalizeAxis } from '../base/shape';
import { PREAMBLE } from '../engine/templates/preamble';
import { checkDevices } from './devices';

function arrays(list: unknown, what: string): GPUArray[] {
  // every(), not some(): a hole (new Array(2)) is skipped by some() and would fail later without a code.
  if (!Array.isArray(list) || list.length === 0 || !Array.from(list).every((a) => a instanceof GPUArray)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `${what} takes a non-empty array of GPUArrays. Received ${describe(list)}`);
  }
  return sameContext(what, (list as GPUArray[]).map((a) => a.check()));
}

/** Throws TypeError ERR_DEVICE_MISMATCH unless every array lives in the same context (device). */
function sameContext(what: string, xs: GPUArray[]): GPUArray[] {
  checkDevices(what, xs);
  return xs;
}

/**
 * Joins arrays along an existing axis (dtype promoted like NumPy).
 * @example
 * gpuarray.concatenate([a, b], 0);
 */
export function concatenate(list: readonly GPUArray[], axis = 0, opts: { stream?: Stream | null } = {}): GPUArray {
  const xs = arrays(list, 'concatenate');
  opts = checkedOptions(opts, 'concatenate', ['stream']); // NumPy's out, dtype, casting: refused, not ignored
  const nd = xs[0].ndim;
  if (nd === 0) throw rangeError('ERR_AXIS_OUT_OF_RANGE', 'zero-dimensional arrays cannot be concatenated');
  const ax = normalizeAxis(axis, nd);
  for (const x of xs) {
    if (x.ndim !== nd || x.shape.some((n, d) => d !== ax && n !== xs[0].shape[d])) {
      throw rangeError('ERR_SHAPE_MISMATCH', `concatenate: all shapes must match except on axis ${ax}: ` +
        xs.map((y) => `(${y.shape.join(',')})`).join(' '));
    }
  }
  const shape = [...xs[0].shape];
  shape[ax] = xs.reduce((s, x) => s + x.shape[ax], 0);
  const out = GPUArray.allocate(shape, resultType(...xs.map((x) => x.dtype)), opts.stream);
  let start = 0;
  try {
    for (const x of xs) {
      const idx = shape.map((_, d) => (d === ax ? `${start}:${start + x.shape[ax]}` : ':'));
      assign(out.index(...idx), x, opts.stream);
      start += x.shape[ax];
    }
  } catch (e) {
    out.dispose(); // a copy failed part way (out of memory for a temporary, a faulted context)
    throw e;
  }
  return out;
}

/**
 * Joins same-shape arrays along a new axis.
 * @example
 * gpuarray.stack([a, b], 1);
 */
export function stack(list: readonly GPUArray[], axis = 0, opts: { stream?: Stream | null } = {}): GPUArray {
  const xs = arrays(list, 'stack');
  opts = checkedOptions(opts, 'stack', ['stream']);
  if (xs.some((x) => x.ndim !== xs[0].ndim || x.shape.some((n, d) => n !== xs[0].shape[d]))) {
    throw rangeError('ERR_SHAPE_MISMATCH', `stack: all arrays must have the same shape: ${xs.map((y) => `(${y.shape.join(',')})`).join(' ')}`);
  }
  const ax = normalizeAxis(axis, xs[0].ndim + 1);
  return concatenate(xs.map((x) => x.expandDims(ax)), ax, opts);
}

// Gather/scatter kernels over C-contiguous data: one thread per moved element; an out-of-range
// index sets a flag that the host turns into a RangeError.
/** @internal Source and name of the gather ('take') or scatter ('put') kernel for a storage type. */
export function indexSource(kind: 'take' | 'put', elem: string): { source: string; name: string } {
  const name = `nc_${kind}_${elem.replace(/\W/g, '_')}`;
  const body = kind === 'take'
    ? `const unsigned long long o = i / (nidx * inner), j = (i / inner) % nidx, k = i % inner;
       long long t = idx[j]; if (t < 0) t += axlen;
       if (t < 0 || t >= axlen) { *err = 1; return; }
       dst[i] = src[(o * axlen + t) * inner + k];`
    : `long long t = idx[i % nidx]; if (t < 0) t += axlen;
       if (t < 0 || t >= axlen) { *err = 1; return; }
       dst[t] = src[i % inner];`;
  const source = `${PREAMBLE}
extern "C" __global__ void ${name}(${elem} *dst, const ${elem} *src, const long long *idx, unsigned long long nidx,
    long long axlen, unsigned long long inner, unsigned long long n, int *err) {
  const unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  ${body}
}`;
  return { source, name };
}

function indexKernel(kind: 'take' | 'put', elem: string): NativeAddon.FunctionHandle {
  const { source, name } = indexSource(kind, elem);
  return generatedKernel(source, name);
}

const P = new ArgPacker(64);

function launchIndex(fn: NativeAddon.FunctionHandle, dst: GPUArray, src: GPUArray, idx: GPUArray, axlen: number,
  inner: number, n: number, stream: Stream | null | undefined): void {
  const err = GPUArray.allocate([1], DTYPES.int32, stream);
  try {
    cu.memset(err.ptr, 0, 4, 1, streamHandle(stream), false);
    P.reset().ptr(dst.ptr).ptr(src.ptr).ptr(idx.ptr).u64n(idx.size).i64(axlen).u64n(inner).u64n(n).ptr(err.ptr);
    const sh = streamHandle(stream);
    for (const x of [dst, src, idx]) useOn(x, sh); // memory of another stream (memory.ts)
    if (n > 0) P.launch(fn, sh, Math.max(1, Math.ceil(n / 256)), 1, 1, 256, 1, 1, 0, false);
    if (err.item()) throw rangeError('ERR_INDEX_OUT_OF_RANGE', `index out of range for an axis of length ${axlen}`);
  } finally {
    err.dispose();
  }
}

function indexArray(indices: GPUArray | readonly number[], stream?: Stream | null): { idx: GPUArray; temp: boolean } {
  if (indices instanceof GPUArray) {
    const d = indices.check().dtype;
    if (d.kind !== 'i' && d.kind !== 'u') throw typeError('ERR_INVALID_DTYPE', `indices must be integers, not ${d.name}`);
    return d === DTYPES.int64 && indices.flags.cContiguous
      ? { idx: indices, temp: false }
      : { idx: indices.astype('int64', { stream }), temp: true };
  }
  if (!Array.isArray(indices) || indices.some((x) => !Number.isInteger(x))) {
    throw typeError('ERR_INVALID_ARG_TYPE', `indices must be a GPUArray or an array of integers. Received ${describe(indices)}`);
  }
  const h = BigInt64Array.from(indices.map((x) => BigInt(x)));
  const idx = GPUArray.allocate([h.length], DTYPES.int64, stream);
  try {
    cu.memcpyHtod(idx.ptr, h.buffer, 0, h.byteLength, false);
  } catch (e) {
    idx.dispose();
    throw e;
  }
  return { idx, temp: true };
}

/**
 * Elements at `indices` along `axis` (flattened when axis is undefined), like numpy.take.
 * Negative indices count from the end; out-of-range ones throw RangeError ERR_INDEX_OUT_OF_RANGE.
 * @example
 * gpuarray.take(a, [0, 2], 1);
 */
export function take(a: GPUArray, indices: GPUArray | readonly number[], axis?: number,
  opts: { stream?: Stream | null } = {}): GPUArray {
  arrayArg(a, 'a');
  opts = checkedOptions(opts, 'take', ['stream']); // NumPy's out: refused, not ignored
  if (indices instanceof GPUArray) sameContext('take', [a, indices.check()]);
  const ax = axis === undefined ? 0 : normalizeAxis(axis, a.ndim);
  const { idx, temp } = indexArray(indices, opts.stream);
  let src: GPUArray | undefined;
  try {
    src = (axis === undefined ? a.ravel() : a).contiguous();
    const shape = [...src.shape.slice(0, ax), ...idx.shape, ...src.shape.slice(ax + 1)];
    const out = GPUArray.allocate(shape, src.dtype, opts.stream);
    const inner = src.shape.slice(ax + 1).reduce((x, y) => x * y, 1);
    try {
      launchIndex(indexKernel('take', src.dtype.storageC), out, src, idx, src.shape[ax], inner, out.size, opts.stream);
    } catch (e) {
      out.dispose();
      throw e;
    }
    return out;
  } finally {
    if (temp) idx.dispose();
    if (src && src !== a) src.dispose();
  }
}

/**
 * Sets `a.flat[indices] = values` (values repeat when shorter), like numpy.put; `a` must be
 * C-contiguous. Out-of-range indices throw RangeError ERR_INDEX_OUT_OF_RANGE.
 * @example
 * gpuarray.put(a, [0, 3], gpuarray.toGpu([9, 9], { dtype: a.dtype }));
 */
export function put(a: GPUArray, indices: GPUArray | readonly number[], values: GPUArray,
  opts: { stream?: Stream | null } = {}): void {
  arrayArg(a, 'a');
  opts = checkedOptions(opts, 'put', ['stream']); // NumPy's mode: refused, not ignored
  if (!a.flags.cContiguous) throw typeError('ERR_INVALID_ARG_VALUE', 'put() needs a C-contiguous array (use copy())');
  if (!(values instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `values must be a GPUArray. Received ${describe(values)}`);
  sameContext('put', indices instanceof GPUArray ? [a, values.check(), indices.check()] : [a, values.check()]);
  let { idx, temp } = indexArray(indices, opts.stream);
  let vals = values;
  try {
    // Values (or indices) in a's own bytes are read whole first, as NumPy: the scatter could
    // store over elements other threads have yet to read (put(a, ind, a[:n])).
    if (idx.alloc === a.alloc) [idx, temp] = [idx.copy(opts), true]; // the caller's own int64 array (a temporary never is)
    if (values.dtype !== a.dtype || !values.flags.cContiguous || values.alloc === a.alloc) vals = values.astype(a.dtype, opts);
    if (vals.size === 0 && idx.size > 0) throw rangeError('ERR_OUT_OF_RANGE', 'put(): values is empty');
    launchIndex(indexKernel('put', a.dtype.storageC), a, vals, idx, a.size, Math.max(1, vals.size), idx.size, opts.stream);
  } finally {
    if (temp) idx.dispose();
    if (vals !== values) vals.dispose();
  }
}
