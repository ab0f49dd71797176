/**
 * The histogram engine (templates/histogram.ts): bincount's and histogram's counting kernel with
 * the grid and the way of adding chosen from the device, and the range reduction of a float
 * array. Kernels are cached per context (sortKernel); nothing here reads back.
 */
import { DType } from '../base/dtype';
import { Stream, multiprocessorCount } from '../cuda/driver';
import { usedOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { sortKernel } from './sort';
import { runReduction } from './reduce';
import { ReduceSpec } from './templates/reduction';
import {
  HIST_BLOCK, HIST_SHARED_BYTES, HistKernelSpec, binParts, histKernel, histKernelName, histRangeSpec, privateBinBytes,
} from './templates/histogram';

const P = new ArgPacker(128);

/** One histogram (or bincount) of `n` contiguous elements of `x` at `input`. @internal */
export interface HistRun {
  x: DType;
  input: bigint;
  n: number;
  /** Bins of the output (bincount: values at or past it are not counted). */
  bins: number;
  /** bins × binParts(weights) accumulators: int64 counts, or float64 sums of the weights; zeroed here. */
  out: bigint;
  /** n contiguous weights (any real or complex dtype), summed in float64; absent: counts. */
  weights?: { dt: DType; address: bigint } | null;
  /**
   * histogram: bins + 1 contiguous sorted edges, compared in `cmp`; `uniform`: equal-width bins
   * from `lo` to `hi` (a first guess of each element's bin; the edges decide). Absent: bincount.
   */
  edges?: { dt: DType; cmp: DType; address: bigint; uniform?: { lo: number; hi: number } } | null;
  stream?: Stream | null;
  uses: readonly unknown[];
}

/** The kernel of a run's dtypes (cached per context). @internal */
export function histFunction(k: HistKernelSpec): NativeAddon.FunctionHandle {
  return sortKernel(`hist:${histKernelName(k)}`, () => histKernel(k));
}

/**
 * Blocks and the way of adding for `n` elements into `bins` bins: the block's own bins in shared
 * memory when they fit (HIST_SHARED_BYTES) and a block's elements stay below 2^32 (uint32
 * counts), with at most one wave at that shared size and about 4 elements a bin per block (each
 * block merges every bin once); else atomics on the output, one wave of 256-thread blocks.
 * @internal
 */
export function histGrid(fn: NativeAddon.FunctionHandle, n: number, bins: number, weights: DType | null):
  { grid: number; privatized: boolean; shared: number } {
  const steps = Math.max(1, Math.ceil(n / (4 * HIST_BLOCK)));
  const shared = bins * privateBinBytes(weights);
  if (shared <= HIST_SHARED_BYTES) {
    const perSM = Math.max(1, cu.occupancyMaxActiveBlocks(fn, HIST_BLOCK, shared));
    const grid = Math.max(1, Math.min(steps, multiprocessorCount() * perSM, Math.ceil(n / (4 * bins))));
    if (n / grid < 2 ** 32) return { grid, privatized: true, shared };
  }
  return { grid: Math.min(steps, cu.residentBlocks(fn, HIST_BLOCK)), privatized: false, shared: 0 };
}

/** Zeroes `r.out` and adds every element to its bin (see HistRun). @internal */
export function runHistogram(r: HistRun): void {
  const weights = r.weights?.dt ?? null;
  const sh = usedOn(r.stream, r.uses);
  const slots = r.bins * binParts(weights);
  if (slots > 0) cu.memset(r.out, 0, 2 * slots, 4, sh, false); // 8-byte accumulators
  if (r.n === 0 || r.bins === 0) return;
  const e = r.edges ?? null;
  const fn = histFunction({ x: r.x, edges: e?.dt ?? null, cmp: e?.cmp ?? null, weights });
  const { grid, privatized, shared } = histGrid(fn, r.n, r.bins, weights);
  const u = e?.uniform;
  P.reset().ptr(r.input).ptr(r.weights?.address ?? 0n).ptr(e?.address ?? 0n).ptr(r.out).u64n(r.n).u64n(r.bins)
    .f64(u ? u.lo : 0).f64(u ? r.bins / (u.hi - u.lo) : 0).i32(u ? 1 : 0).i32(privatized ? 1 : 0);
  P.launch(fn, sh, grid, 1, 1, HIST_BLOCK, 1, 1, shared, true);
}

const rangeSpecs = new Map<DType, ReduceSpec>();

/**
 * The min and max of the `n` contiguous elements of a float dtype at `input` as two float64 at
 * `out` (NaN when any element is NaN): one reduction. @internal
 */
export function histRange(dt: DType, input: bigint, align16: number, n: number, out: bigint,
  stream: Stream | null | undefined, uses: readonly unknown[]): void {
  let spec = rangeSpecs.get(dt);
  if (!spec) rangeSpecs.set(dt, (spec = histRangeSpec(dt)));
  usedOn(stream, uses);
  runReduction(spec, {
    shape: [n], strides: [1], axes: [0], orderFree: true, args: [{ ptr: input }], out, accBytes: 16,
    vec: [{ bytes: dt.bytes, align16 }], stream,
  });
}
