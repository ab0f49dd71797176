/**
 * The CPU reference for NCCL collectives (test/92 with one rank, test/93 with several): NCCL's
 * dtypes, the ops each takes, element i of every rank's input reduced with NCCL's definitions.
 */
import type { GPUArray } from '../lib';
import type { DTypeName, NcclReduceOp } from '../lib';
import { V, isInt, kind, store, upload, wrap } from './reference';

export const NCCL_DTYPES: DTypeName[] = ['int8', 'uint8', 'int32', 'uint32', 'int64', 'uint64', 'float16', 'bfloat16', 'float32',
  'float64', 'complex64', 'complex128'];
export const NCCL_OPS: NcclReduceOp[] = ['sum', 'prod', 'max', 'min', 'avg'];
export const opsFor = (d: DTypeName): NcclReduceOp[] => kind(d) === 'c' ? ['sum', 'avg'] : NCCL_OPS;

/** The CPU reference: element i reduced over the ranks' inputs (NCCL's definition, any nranks). */
export function reference(d: DTypeName, op: NcclReduceOp, ranks: V[][]): V[] {
  return ranks[0].map((_, i) => {
    const xs = ranks.map((r) => r[i]);
    if (kind(d) === 'c') {
      const c = xs as { re: number; im: number }[];
      // Folds start at the first rank's value, so one rank keeps -0 as NCCL does (a copy).
      const re = c.slice(1).reduce((s, x) => s + x.re, c[0].re), im = c.slice(1).reduce((s, x) => s + x.im, c[0].im);
      const n = op === 'avg' ? ranks.length : 1;
      return store(d, { re: re / n, im: im / n });
    }
    if (isInt(d)) {
      const b = xs.map((x) => BigInt(x as number | bigint));
      const r = op === 'sum' || op === 'avg' ? b.reduce((s, x) => s + x, 0n) : op === 'prod' ? b.reduce((s, x) => s * x, 1n)
        : b.reduce((m, x) => op === 'max' ? (x > m ? x : m) : (x < m ? x : m));
      // avg: the wrapped sum divided by nranks, truncated toward zero (NCCL's FuncSumPostDiv).
      return op === 'avg' ? wrap(d, BigInt(wrap(d, r)) / BigInt(ranks.length)) : wrap(d, r);
    }
    const f = xs as number[];
    const r = op === 'sum' || op === 'avg' ? f.slice(1).reduce((s, x) => s + x, f[0]) : op === 'prod' ? f.slice(1).reduce((s, x) => s * x, f[0])
      : f.some(Number.isNaN) ? NaN : op === 'max' ? Math.max(...f) : Math.min(...f);
    return store(d, op === 'avg' ? r / ranks.length : r);
  });
}

/** A sentinel fill for out-of-place outputs, so an output NCCL did not write is caught. */
export function poisoned(d: DTypeName, n: number, shape: number[] = [n]): GPUArray {
  const v = kind(d) === 'c' ? { re: 77, im: -77 } : 77;
  return upload(d, Array.from({ length: n }, () => v), shape);
}
