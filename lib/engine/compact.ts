/**
 * Stream compaction in C order (templates/compact.ts): a count a chunk and a scan of the counts
 * into chunk starts and the total (which the caller reads back to size the output), then an
 * ordered write of the nonzero elements' flat indices, values or coordinates.
 */
import { DType } from '../base/dtype';
import { Stream } from '../cuda/driver';
import { residentBlocks } from '../cuda/door';
import { usedOn } from '../cuda/memory';
import { ArgPacker } from '../cuda/args';
import { sortKernel } from './sort';
import {
  COMPACT_MAX_CHUNKS, COMPACT_MAX_DIMS, COMPACT_THREADS, COMPACT_TILE, compactCountKernel, compactScanKernel, compactWriteKernel,
} from './templates/compact';

const P = new ArgPacker(512);

/** A compaction of `n` contiguous elements of `dt` at `input`, split into `G` chunks of `chunk` elements. @internal */
export interface CompactRun {
  dt: DType; input: bigint; n: number;
  G: number; chunk: number;
  /** G + 1 uint64: the chunk starts, then the total. */
  starts: bigint;
  stream?: Stream | null; uses: readonly unknown[];
}

const countFn = (dt: DType) => sortKernel(`compact:count:${dt.name}`, () => compactCountKernel(dt));
const writeFn = (dt: DType, dv: DType | null) => sortKernel(`compact:write:${dt.name}:${dv?.name ?? ''}`, () => compactWriteKernel(dt, dv));

/**
 * The chunks of a compaction of `n` elements of `dt` (and `values`, extract's): whole tiles each,
 * one a block, at most one wave of the count and the write kernels (the blocks the device holds at
 * once: SMs × the kernels' occupancy) and at most 1024. @internal
 */
export function compactChunks(n: number, dt: DType, values: DType | null): { G: number; chunk: number } {
  const tiles = Math.max(1, Math.ceil(n / COMPACT_TILE));
  const wave = Math.min(residentBlocks(countFn(dt), COMPACT_THREADS), residentBlocks(writeFn(dt, values), COMPACT_THREADS));
  const want = Math.min(COMPACT_MAX_CHUNKS, wave, tiles);
  const chunk = Math.ceil(tiles / want) * COMPACT_TILE;
  return { G: Math.max(1, Math.ceil(n / chunk)), chunk };
}

/** Counts the nonzero elements (NaN is nonzero) of each chunk and scans the counts into `r.starts`. @internal */
export function compactCount(r: CompactRun): void {
  const count = countFn(r.dt);
  const scan = sortKernel('compact:scan', () => compactScanKernel());
  const sh = usedOn(r.stream, r.uses);
  P.reset().ptr(r.input).u64n(r.n).u64n(r.chunk).ptr(r.starts);
  P.launch(count, sh, r.G, 1, 1, COMPACT_THREADS, 1, 1, 0, true);
  P.reset().ptr(r.starts).u32(r.G);
  P.launch(scan, sh, 1, 1, 1, 1024, 1, 1, 0, true);
}

/**
 * Writes the `total` nonzero elements' flat indices (mode 0), `values`' elements at them (1), or
 * their coordinates in an array of shape `dims` ([total, ndim]: 2; [ndim, total]: 3) to `out`. @internal
 */
export function compactWrite(r: CompactRun, out: bigint, mode: 0 | 1 | 2 | 3, total: number, dims: readonly number[] = [],
  values?: { dt: DType; address: bigint }): void {
  if (total === 0) return;
  if (dims.length > COMPACT_MAX_DIMS) throw new RangeError(`compaction: at most ${COMPACT_MAX_DIMS} dimensions`);
  const fn = writeFn(r.dt, values?.dt ?? null);
  const sh = usedOn(r.stream, r.uses);
  P.reset().ptr(r.input).u64n(r.n).u64n(r.chunk).ptr(r.starts).ptr(out).i32(mode).i32(dims.length).u64n(total);
  for (let d = 0; d < COMPACT_MAX_DIMS; d++) P.i64(dims[d] ?? 1);
  P.ptr(values?.address ?? 0n);
  P.launch(fn, sh, r.G, 1, 1, COMPACT_THREADS, 1, 1, 0, true);
}
