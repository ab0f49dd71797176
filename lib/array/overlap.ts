/**
 * Memory overlap between an output and an input, and outputs that overlap themselves. NumPy's
 * rule: a result is as if every input were read before the output is written. A kernel that
 * writes element i while another block still has to read an input element at the same address
 * breaks that, so functions writing into a caller's array copy the input (or write a temporary)
 * when the two may share bytes, unless they are the same view (element i reads only element i).
 */
import { typeError } from '../base/errors';
import type { GPUArray } from './gpuarray';

/** Byte range [lo, hi) an array touches. */
function extent(a: GPUArray): [bigint, bigint] {
  let lo = 0, hi = 0;
  a.shape.forEach((n, d) => {
    if (n === 0) return;
    const s = a.strides[d] * (n - 1);
    if (s < 0) lo += s; else hi += s;
  });
  const p = a.ptr;
  return [p + BigInt(lo), p + BigInt(hi + a.dtype.bytes)];
}

/** The same elements in the same order: a kernel reading `b[i]` and writing `a[i]` is safe in place. */
export function sameLayout(a: GPUArray, b: GPUArray): boolean {
  return a.ptr === b.ptr && a.shape.length === b.shape.length &&
    a.shape.every((n, i) => n === b.shape[i]) && a.strides.every((s, i) => s === b.strides[i] || a.shape[i] === 1);
}

/** True when writing `out` may change what `inp` reads, other than element for element in the same layout. @internal */
export function overlaps(out: GPUArray, inp: GPUArray): boolean {
  if (out.alloc !== inp.alloc || out.size === 0 || inp.size === 0) return false;
  const [a0, a1] = extent(out), [b0, b1] = extent(inp);
  return a0 < b1 && b0 < a1 && !sameLayout(out, inp);
}

/**
 * @internal Refuses an output with a zero stride over more than one element (a broadcast view):
 * every element would be written by many threads at once. NumPy's broadcast views are read-only.
 */
export function checkWritable(out: GPUArray, what: string): void {
  for (let d = 0; d < out.shape.length; d++) {
    if (out.strides[d] === 0 && out.shape[d] > 1) {
      throw typeError('ERR_READ_ONLY', `${what}: the output is a broadcast view (stride 0 along axis ${d}), which cannot be ` +
        'written: each of its elements stands for several; write into a copy (x.copy())');
    }
  }
}
