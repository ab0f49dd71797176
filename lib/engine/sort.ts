/**
 * The sort engine: runs the LSD radix sort of templates/sort.ts (prep → scanhist → one scatter pass
 * per digit → finish) as one or more stages, each a stable sort by one key of the element's flat
 * index `p` (the payload): least significant stage first, so the stages together sort by the last
 * stage's key, then the one before... (complex128: imaginary part, then real part; along an axis:
 * the key, then the row). Nothing is read back: which ping-pong buffer holds a pass's input and
 * which passes are skipped is decided on the device (scanhist). Kernels are cached per context,
 * the histograms, look-back words and ticket per (context, stream) workspace; the key and payload
 * buffers are allocated per call from the stream-ordered pool and freed in stream order.
 */
import { DType } from '../base/dtype';
import { envNumber } from '../base/env';
import { rangeError } from '../base/errors';
import { Stream, currentContext, multiprocessorCount, streamHandle } from '../cuda/driver';
import { generatedKernel } from '../cuda/modules';
import { DeviceAllocation, usedOn, workspaceAllocations } from '../cuda/memory';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { PREAMBLE } from './templates/preamble';
import { runReduction, workspaceKey } from './reduce';
import {
  KeyKind, MAX_PASSES, PREP_ITEMS, finishKeysKernel, finishPayloadKernel, keyBits, keyBytes, passKernel,
  passBlock, prepKernel, scanHistKernel, sortTile, searchKernel,
} from './templates/sort';
import {
  HIST_MODE, UNIQUE_BALLOT_BINS, UNIQUE_ROUND, UNIQUE_SHARED_BYTES, uniqueBinsCountKernel, uniqueBinsResultKernel,
  uniqueCountKernel, uniqueCountsKernel, uniqueHistKernel, uniqueInverseKernel, uniqueMinMaxSpec, uniqueResultKernel,
} from './templates/unique';
import {
  BITMAP_BLOCK, BITMAP_BUCKETS, BITMAP_MIN_CHUNK, BITMAP_SCAN_BLOCK, BITMAP_WORDS, bitmapCountKernel, bitmapCrossKernel,
  bitmapResultKernel, bitmapScanKernel, bitmapStartsKernel,
} from './templates/unique_bitmap';
import { ReduceSpec } from './templates/reduction';
import { rowSortKernel, rowSortLog2, rowSortThreads } from './templates/sort_rows';

/** Most elements one sort handles (uint32 payloads and 32-bit look-back counts). */
export const MAX_SORT_SIZE = 2 ** 32 - 1;
const MAX_STAGES = 4;
const INFO_WORDS = MAX_PASSES + 1;

const kernels = new Map<string, { generation: number; ctx: number; fn: NativeAddon.FunctionHandle }>();

/** The kernel `name` built by `build` (cached per context). @internal */
export function sortKernel(key: string, build: () => { source: string; name: string }): NativeAddon.FunctionHandle {
  const { generation, id: ctx } = currentContext();
  const k = `${ctx}:${key}`;
  const hit = kernels.get(k);
  if (hit && hit.generation === generation) return hit.fn;
  const { source, name } = build();
  const fn = generatedKernel(`${PREAMBLE}\n${source}\n`, name);
  kernels.set(k, { generation, ctx, fn });
  return fn;
}

interface Workspace { alloc: DeviceAllocation; tiles: number; epoch: number }
const workspaces = new Map<string, Workspace>();

/**
 * Per (context, stream): histograms (MAX_PASSES × 256, left zeroed by scanhist), digit starts,
 * per-stage info words, the ticket (left zeroed by each pass) and `tiles` × 256 look-back words
 * (epoch-tagged: cleared only when the epoch wraps).
 */
function workspace(tiles: number, stream: Stream | null | undefined) {
  const key = workspaceKey(stream);
  let ws = workspaces.get(key);
  if (!ws || ws.alloc.freed || ws.tiles < tiles) {
    const cap = Math.max(64, tiles, (ws?.tiles ?? 0) * 2);
    dropWorkspace(stream);
    const bytes = FIXED + cap * 256 * 8;
    const alloc = new DeviceAllocation(bytes, stream ?? null);
    workspaceAllocations.add(alloc);
    cu.memset(alloc.ptr, 0, bytes / 4, 4, streamHandle(stream), false);
    ws = { alloc, tiles: cap, epoch: 0 };
    workspaces.set(key, ws);
  }
  const p = ws.alloc.ptr;
  return { ws, hist: p, offs: p + HIST, info: p + 2n * HIST, ticket: p + 2n * HIST + INFO, lb: p + BigInt(FIXED) };
}
/** Forgets the workspace of `stream` (freed in stream order); the next sort there makes a zeroed one. */
function dropWorkspace(stream: Stream | null | undefined): void {
  const key = workspaceKey(stream);
  const ws = workspaces.get(key);
  workspaces.delete(key);
  if (ws && !ws.alloc.freed) {
    workspaceAllocations.delete(ws.alloc);
    ws.alloc.free(stream ?? null);
  }
}
const HIST = BigInt(MAX_PASSES * 256 * 4);
const INFO = BigInt(MAX_STAGES * INFO_WORDS * 4);
const FIXED = Number(2n * HIST + INFO) + 256;

/** One stage of a sort: the key it sorts by. */
export interface SortStage { kind: KeyKind; rows?: number }

/** A sort run: `n` elements of `dt` at `input` (contiguous), rows of `len`. */
export interface SortRun {
  input: bigint;
  dt: DType;
  n: number;
  /** Row length (`n` for a flat sort); indices written are `p % len`. */
  len: number;
  stages: SortStage[];
  /** Un-transformed sorted keys (keys-only sort of a real dtype, one 'value' stage). */
  keysOut?: bigint;
  /** Values gathered by the payload (payload sorts). */
  valuesOut?: bigint;
  /** int64 indices within the row (payload sorts). */
  indicesOut?: bigint;
  stream?: Stream | null;
  uses: readonly unknown[];
  /**
   * unique's sort (one 'value' stage): prep adds its least and greatest transformed key to the
   * uint64 pair at `out` (filled with all ones and zero before), and when they span at most
   * `narrow` values (greatest − least < narrow) nothing is sorted (every pass skipped, nothing
   * written: see scanHistKernel). `low`: that many low digit passes skipped (uniqueBitmap's sort
   * by the top 16 bits).
   */
  range?: { out: bigint; narrow: number; low?: number };
}

const P = new ArgPacker(256);

/** Blocks of 256 for a grid-stride loop over `n` items: one an item, at most 16 an SM. @internal */
export function gridFor(n: number): number {
  return Math.max(1, Math.min(Math.ceil(n / 256), multiprocessorCount() * 16));
}
/**
 * Waves of prep blocks (tuning: NODECUDA_SORT_PREP_WAVES, 0 to 4): prep's grid is at most that
 * many times the blocks the device holds at once (SMs × the kernel's occupancy at 256 threads),
 * so fewer blocks flush shared histograms into the global ones; 0: 16 blocks an SM, as the
 * other grid-stride kernels.
 */
const PREP_WAVES = envNumber('NODECUDA_SORT_PREP_WAVES', 0, { min: 0, max: 4 });
function prepGrid(fn: NativeAddon.FunctionHandle, n: number): number {
  const groups = Math.ceil(n / PREP_ITEMS);
  if (!PREP_WAVES) return gridFor(groups);
  return Math.max(1, Math.min(Math.ceil(groups / 256), cu.residentBlocks(fn, 256) * PREP_WAVES));
}

/** Whether the bytes the result is written to meet the input's (`bytes` each). */
function overlaps(run: SortRun, bytes: number): boolean {
  const b = BigInt(bytes);
  return [run.keysOut, run.valuesOut].some((o) => o !== undefined && o !== 0n && o < run.input + b && run.input < o + b);
}

/** Sorts (stable) as `run` says; everything is enqueued on the stream, nothing is waited for. @internal */
export function runSort(run: SortRun): void {
  const { n, dt, stages } = run;
  if (n === 0) return;
  if (n > MAX_SORT_SIZE) throw rangeError('ERR_OUT_OF_RANGE', `sort: at most 2^32 - 1 elements are supported. Received ${n}`);
  if (stages.length > MAX_STAGES) throw rangeError('ERR_OUT_OF_RANGE', `sort: at most ${MAX_STAGES} key stages`);
  const sh = usedOn(run.stream, run.uses);
  const payload = run.keysOut === undefined;
  if (run.range && (stages.length !== 1 || stages[0].kind !== 'value')) throw new Error('runSort: range needs one value stage');
  // Every kernel first: a compile error must not leave a launched prep's histograms unconsumed.
  const plan = stages.map((st, s) => {
    const kb = keyBytes(dt, st.kind);
    return {
      passes: Math.ceil(keyBits(dt, st.kind, st.rows) / 8),
      block: passBlock(kb, payload),
      tiles: Math.ceil(n / sortTile(kb, payload)),
      prep: s === 0 && run.range ? sortKernel(`prep:range:${dt.name}`, () => prepKernel(dt, st.kind, true))
        : sortKernel(st.kind === 'row' ? 'prep:row' : `prep:${st.kind}:${dt.name}`, () => prepKernel(dt, st.kind)),
      pass: sortKernel(`pass:${dt.name}:${kb}:${payload}`, () => passKernel(dt, kb, payload)),
    };
  });
  const scan = sortKernel('scanhist', scanHistKernel);
  const fin = payload ? sortKernel(`finpay:${dt.name}`, () => finishPayloadKernel(dt))
    : sortKernel(`finkeys:${dt.name}`, () => finishKeysKernel(dt));
  const w = workspace(Math.max(...plan.map((p) => p.tiles)), run.stream);
  const kbMax = Math.max(...stages.map((s) => keyBytes(dt, s.kind)));
  const keys = new DeviceAllocation(2 * n * kbMax, run.stream ?? null);
  let vals: DeviceAllocation | null = null;
  try {
    vals = payload ? new DeviceAllocation(2 * n * 4, run.stream ?? null) : null;
    const k0 = keys.ptr;
    const k1 = keys.ptr + BigInt(n * kbMax);
    const v0 = vals ? vals.ptr : 0n;
    const v1 = vals ? vals.ptr + BigInt(n * 4) : 0n;
    const grid = gridFor(n);
    let prevInfo = 0n;
    plan.forEach(({ passes, block, tiles, prep, pass }, s) => {
      const info = w.info + BigInt(s * INFO_WORDS * 4);
      // The first stage's keys are the input's values: prep stores none and the stage's first
      // executed pass reads and transforms the input itself (one write and read of n keys fewer).
      // Not when the result overwrites the input (an in-place or overlapping keys-only sort): the
      // last pass would write keys that other tiles of a first pass still read.
      const raw = s === 0 && stages[0].kind === 'value' && dt.kind !== 'c' && !overlaps(run, dt.bytes * n);
      P.reset().ptr(run.input).ptr(v0).ptr(v1).ptr(prevInfo).ptr(raw ? 0n : k0).ptr(s > 0 ? v0 : 0n)
        .u32(n).u32(run.len).ptr(w.hist).i32(passes).ptr(s === 0 ? run.range?.out ?? 0n : 0n);
      P.launch(prep, sh, prepGrid(prep, n), 1, 1, 256, 1, 1, 0, true);
      const last = s === plan.length - 1;
      P.reset().ptr(w.hist).ptr(w.offs).ptr(info).i32(passes).u32(n).i32(s === 0 && payload ? 1 : 0).i32(last ? 1 : 0)
        .i32(raw ? 1 : 0).ptr(run.range?.out ?? 0n).u64n(run.range?.narrow ?? 0).i32(run.range?.low ?? 0);
      P.launch(scan, sh, 1, 1, 1, 256, 1, 1, 0, true);
      // Passes below range.low are skipped (scanhist): not launched.
      for (let q = s === 0 ? run.range?.low ?? 0 : 0; q < passes; q++) {
        const next = (w.ws.epoch + 1) & 0x3fffffff;
        // Epochs wrap after 2^30 - 1 passes: clear the look-back words first, so no stale word of
        // an earlier pass with this epoch can be read as current.
        if (next === 0) cu.memset(w.lb, 0, w.ws.tiles * 256 * 2, 4, sh, false);
        w.ws.epoch = next || 1;
        P.reset().ptr(k0).ptr(k1).ptr(v0).ptr(v1).ptr(info).ptr(w.offs).ptr(w.lb).ptr(w.ticket)
          .u32(n).i32(q).u32(w.ws.epoch)
          .ptr(run.input).ptr(payload ? run.valuesOut ?? 0n : run.keysOut!).ptr(run.indicesOut ?? 0n).u32(run.len);
        P.launch(pass, sh, tiles, 1, 1, block, 1, 1, 0, true);
      }
      prevInfo = info + BigInt(passes * 4);
    });
    if (!payload) P.reset().ptr(k0).ptr(k1).ptr(prevInfo).ptr(run.keysOut!).u32(n).ptr(run.input);
    else {
      P.reset().ptr(v0).ptr(v1).ptr(prevInfo).ptr(run.input).ptr(run.valuesOut ?? 0n).ptr(run.indicesOut ?? 0n)
        .u32(n).u32(run.len);
    }
    P.launch(fin, sh, grid, 1, 1, 256, 1, 1, 0, true);
  } catch (e) {
    // A launch that failed midway may leave histograms or the ticket set: the next sort on this
    // stream starts from a fresh (zeroed) workspace instead.
    dropWorkspace(run.stream);
    throw e;
  } finally {
    keys.free(run.stream ?? null);
    vals?.free(run.stream ?? null);
  }
}

/** Launches a grid-stride helper kernel over `n` items with packed parameters (P already filled). */
function launchLoop(fn: NativeAddon.FunctionHandle, n: number, stream: Stream | null | undefined): void {
  P.launch(fn, streamHandle(stream), gridFor(n), 1, 1, 256, 1, 1, 0, true);
}

/** A short-row sort (templates/sort_rows.ts): `rows` contiguous rows of `len` elements of `dt`. @internal */
export interface RowSortRun {
  input: bigint; dt: DType; rows: number; len: number;
  /** Ranks kept per row (the output's row length: len for a sort, k for topk). */
  outLen: number;
  /** Ranks counted from the row's end (topk's largest first). */
  reverse: boolean;
  valuesOut?: bigint; indicesOut?: bigint;
  stream?: Stream | null; uses: readonly unknown[];
}

/** Sorts each row in one block, one kernel (rowSortable(dt, len) must hold). @internal */
export function runRowSort(r: RowSortRun): void {
  if (r.rows === 0 || r.len === 0 || r.outLen === 0) return;
  const fn = sortKernel(`rows:${r.dt.name}`, () => rowSortKernel(r.dt));
  const sh = usedOn(r.stream, r.uses);
  const log2N = rowSortLog2(r.len);
  const threads = rowSortThreads(r.dt);
  const blocks = Math.ceil((r.rows * 2 ** log2N) / (threads * 8));
  P.reset().ptr(r.input).ptr(r.valuesOut ?? 0n).ptr(r.indicesOut ?? 0n).u32(r.rows).u32(r.len).u32(r.outLen)
    .i32(r.reverse ? 1 : 0).u32(log2N).i32(r.valuesOut !== undefined && r.valuesOut !== r.input ? 1 : 0);
  P.launch(fn, sh, blocks, 1, 1, threads, 1, 1, 0, true);
}

/** unique's chunking (templates/unique.ts): `grid` blocks of `chunk` elements each, a multiple of a round. @internal */
export interface UniqueChunks { grid: number; chunk: number }

/** The chunks of `n` elements: at most 16 blocks an SM (as gridFor), none of them empty. @internal */
export function uniqueChunks(n: number): UniqueChunks {
  const rounds = Math.max(1, Math.ceil(n / UNIQUE_ROUND));
  const chunk = Math.ceil(rounds / Math.min(rounds, multiprocessorCount() * 16)) * UNIQUE_ROUND;
  return { grid: Math.ceil(Math.max(1, n) / chunk), chunk };
}

/**
 * unique, first kernel: the number of runs of the sorted array in each chunk into the uint32
 * `blocks[grid]`, their total added to the uint32 at `count` (zero it first). @internal
 */
export function uniqueCount(dt: DType, equalNan: boolean, sorted: bigint, count: bigint, blocks: bigint, n: number,
  ch: UniqueChunks, stream?: Stream | null, range?: SortRun['range']): void {
  const fn = sortKernel(`ucount:${dt.name}:${equalNan}`, () => uniqueCountKernel(dt, equalNan));
  P.reset().ptr(sorted).ptr(count).ptr(blocks).u64n(n).u64n(ch.chunk).ptr(range?.out ?? 0n).u64n(range?.narrow ?? 0);
  P.launch(fn, streamHandle(stream), ch.grid, 1, 1, 256, 1, 1, 0, true);
}

/**
 * unique, second kernel (same `n` and chunks as uniqueCount, after it): the values, first indices
 * (through `perm`, int64, when nonzero), run starts and inverse; zero pointers are skipped. With
 * the `range` uniqueCount had, it does nothing when that did. @internal
 */
export function uniqueResults(dt: DType, equalNan: boolean,
  a: { sorted: bigint; blocks: bigint; perm: bigint; vals: bigint; first: bigint; starts: bigint; inv: bigint },
  n: number, ch: UniqueChunks, stream: Stream | null | undefined, uses: readonly unknown[], range?: SortRun['range']): void {
  const sh = usedOn(stream, uses);
  const fn = sortKernel(`uresult:${dt.name}:${equalNan}`, () => uniqueResultKernel(dt, equalNan));
  P.reset().ptr(a.sorted).ptr(a.blocks).ptr(a.perm).ptr(a.vals).ptr(a.first).ptr(a.starts).ptr(a.inv).u64n(n).u64n(ch.chunk)
    .ptr(range?.out ?? 0n).u64n(range?.narrow ?? 0);
  P.launch(fn, sh, ch.grid, 1, 1, 256, 1, 1, 0, true);
}

/** unique: counts[j] = starts[j + 1] - starts[j] (starts[k] = total). @internal */
export function uniqueCounts(starts: bigint, counts: bigint, k: number, total: number, stream?: Stream | null): void {
  const fn = sortKernel('ucounts', uniqueCountsKernel);
  P.reset().ptr(starts).ptr(counts).u64n(k).u64n(total);
  launchLoop(fn, k, stream);
}

// ---- unique's counting path (integers and bool of a small range; templates/unique.ts) ----------

const minMaxSpecs = new Map<DType, ReduceSpec>();

/**
 * unique, counting path: the min and max of the `n` contiguous elements at `input` (an integer or
 * bool dtype) written to `out` as two int64 (signed dtypes) or uint64 (unsigned, bool): one
 * reduction. @internal
 */
export function uniqueMinMax(dt: DType, input: bigint, align16: number, n: number, out: bigint,
  stream: Stream | null | undefined, uses: readonly unknown[]): void {
  let spec = minMaxSpecs.get(dt);
  if (!spec) minMaxSpecs.set(dt, (spec = uniqueMinMaxSpec(dt)));
  usedOn(stream, uses);
  runReduction(spec, {
    shape: [n], strides: [1], axes: [0], orderFree: true, args: [{ ptr: input }], out, accBytes: 16,
    vec: [{ bytes: dt.bytes, align16 }], stream,
  });
}

/**
 * unique, counting path: the histogram of the `n` contiguous elements at `input` over the values
 * lo .. lo + bins - 1 (`lo` as its 64-bit two's complement bits) into `hist`: `bins` uint32 counts,
 * then, `withFirst`, `bins` uint32 first indices; both are initialized here. @internal
 */
export function uniqueHistogram(dt: DType, input: bigint, hist: bigint, withFirst: boolean, n: number, lo: bigint,
  bins: number, stream: Stream | null | undefined, uses: readonly unknown[]): void {
  const fn = sortKernel(`uhist:${dt.name}`, () => uniqueHistKernel(dt));
  const sh = usedOn(stream, uses);
  cu.memset(hist, 0, bins, 4, sh, false);
  if (withFirst) cu.memset(hist + BigInt(bins * 4), 0xffffffff, bins, 4, sh, false);
  const shared = bins * (withFirst ? 8 : 4);
  const groups = Math.ceil(n / 4);
  const sms = multiprocessorCount();
  // Ballots: registers only. Shared: fewer blocks (each merges all its bins at the end: at least
  // 4 elements a bin). Global: as the other grid-stride kernels.
  const mode = bins <= UNIQUE_BALLOT_BINS ? HIST_MODE.ballots : shared <= UNIQUE_SHARED_BYTES ? HIST_MODE.shared : HIST_MODE.global;
  const cap = mode === HIST_MODE.ballots ? sms * 8 : mode === HIST_MODE.shared ? Math.min(sms * 4, Math.ceil(n / (4 * bins))) : sms * 16;
  const grid = Math.max(1, Math.min(Math.ceil(groups / 256), cap));
  P.reset().ptr(input).ptr(hist).ptr(withFirst ? hist + BigInt(bins * 4) : 0n).u64n(n).u64(lo).u32(bins).i32(mode);
  P.launch(fn, sh, grid, 1, 1, 256, 1, 1, mode === HIST_MODE.shared ? shared : 0, true);
}

/** unique, counting path: the occupied bins per chunk into `blocks`, their total added to the uint32 at `total` (zeroed). @internal */
export function uniqueBinsCount(hist: bigint, total: bigint, blocks: bigint, bins: number, ch: UniqueChunks,
  stream?: Stream | null): void {
  const fn = sortKernel('ubins', uniqueBinsCountKernel);
  P.reset().ptr(hist).ptr(total).ptr(blocks).u64n(bins).u64n(ch.chunk);
  P.launch(fn, streamHandle(stream), ch.grid, 1, 1, 256, 1, 1, 0, true);
}

/**
 * unique, counting path (after uniqueBinsCount, same chunks): the values, first indices and
 * counts (int64; zero pointers skipped) at each occupied bin's rank; with `ranks` each occupied
 * bin's count is replaced by its rank. @internal
 */
export function uniqueBinsResults(dt: DType, a: { hist: bigint; blocks: bigint; vals: bigint; first: bigint; counts: bigint },
  withFirst: boolean, lo: bigint, bins: number, ch: UniqueChunks, ranks: boolean, stream: Stream | null | undefined,
  uses: readonly unknown[]): void {
  const fn = sortKernel(`ubinsres:${dt.name}`, () => uniqueBinsResultKernel(dt));
  const sh = usedOn(stream, uses);
  P.reset().ptr(a.hist).ptr(withFirst ? a.hist + BigInt(bins * 4) : 0n).ptr(a.blocks).ptr(a.vals).ptr(a.first).ptr(a.counts)
    .u64(lo).u64n(bins).u64n(ch.chunk).i32(ranks ? 1 : 0);
  P.launch(fn, sh, ch.grid, 1, 1, 256, 1, 1, 0, true);
}

/** unique, counting path: inv[i] = the rank of element i's bin (after uniqueBinsResults with ranks). @internal */
export function uniqueInverse(dt: DType, input: bigint, hist: bigint, inv: bigint, n: number, lo: bigint, bins: number,
  stream: Stream | null | undefined, uses: readonly unknown[]): void {
  const fn = sortKernel(`uinv:${dt.name}`, () => uniqueInverseKernel(dt));
  usedOn(stream, uses);
  P.reset().ptr(input).ptr(hist).ptr(inv).u64n(n).u64(lo).u64n(bins);
  launchLoop(fn, Math.ceil(n / 4), stream);
}

/**
 * unique's values by bitmaps (templates/unique_bitmap.ts), after runSort with `range` and
 * range.low = BITMAP_LOW_PASSES: the `n` 4-byte integers at `sorted` (ordered by their top 16 bits)
 * → their distinct values in order into `out` (room for n), their number to the uint32 at `total`.
 * Like uniqueCount, nothing runs on the device when the range was narrow. @internal
 */
export function uniqueBitmap(dt: DType, sorted: bigint, out: bigint, total: bigint, n: number, range: NonNullable<SortRun['range']>,
  stream: Stream | null | undefined, uses: readonly unknown[]): void {
  const starts = sortKernel(`ubm:starts:${dt.name}`, () => bitmapStartsKernel(dt));
  const count = sortKernel(`ubm:count:${dt.name}`, () => bitmapCountKernel(dt));
  const cross = sortKernel(`ubm:cross:${dt.name}`, () => bitmapCrossKernel(dt));
  const scan = sortKernel('ubm:scan', bitmapScanKernel);
  const result = sortKernel(`ubm:result:${dt.name}`, () => bitmapResultKernel(dt));
  const sh = usedOn(stream, uses);
  // Chunks of equal size, one a block, about one wave of the count kernel's blocks (at least
  // 4096 keys each): a bucket of any size is shared out among the chunks it spans.
  const chunk = Math.max(BITMAP_MIN_CHUNK, Math.ceil(n / cu.residentBlocks(count, BITMAP_BLOCK) / 1024) * 1024);
  const chunks = Math.ceil(n / chunk);
  // uint32: starts (BITMAP_BUCKETS + 1), the counts, their offsets (by bucket), then a bitmap a chunk.
  const fixed = 3 * BITMAP_BUCKETS + 1;
  const work = new DeviceAllocation((fixed + chunks * BITMAP_WORDS) * 4, stream ?? null);
  try {
    const st = work.ptr;
    const cnt = st + BigInt((BITMAP_BUCKETS + 1) * 4);
    const off = cnt + BigInt(BITMAP_BUCKETS * 4);
    const g = st + BigInt(fixed * 4);
    cu.memset(cnt, 0, BITMAP_BUCKETS, 4, sh, false);
    cu.memset(g, 0, chunks * BITMAP_WORDS, 4, sh, false);
    P.reset().ptr(sorted).ptr(st).u32(n).ptr(range.out).u64n(range.narrow);
    launchLoop(starts, Math.ceil(n / 4), stream);
    P.reset().ptr(sorted).ptr(st).ptr(cnt).ptr(g).u32(n).u32(chunk).ptr(range.out).u64n(range.narrow);
    P.launch(count, sh, chunks, 1, 1, BITMAP_BLOCK, 1, 1, 0, true);
    P.launch(cross, sh, chunks, 1, 1, BITMAP_BLOCK, 1, 1, 0, true); // the same parameters
    P.reset().ptr(cnt).ptr(off).ptr(total).ptr(range.out).u64n(range.narrow);
    P.launch(scan, sh, 1, 1, 1, BITMAP_SCAN_BLOCK, 1, 1, 0, true);
    P.reset().ptr(sorted).ptr(st).ptr(off).ptr(g).ptr(out).u32(n).u32(chunk).ptr(range.out).u64n(range.narrow);
    P.launch(result, sh, chunks, 1, 1, BITMAP_BLOCK, 1, 1, 0, true);
  } finally {
    work.free(stream ?? null);
  }
}

/** searchsorted: out[i] = insertion point of v[i] in a (through sorter when nonzero). @internal */
export function searchSorted(da: DType, dv: DType, common: DType, a: bigint, na: number, sorter: bigint, v: bigint,
  out: bigint, n: number, right: boolean, stream?: Stream | null): void {
  const fn = sortKernel(`search:${da.name}:${dv.name}:${common.name}`, () => searchKernel(da, dv, common));
  P.reset().ptr(a).ptr(sorter).ptr(v).ptr(out).i64(na).u64n(n).i32(right ? 1 : 0);
  launchLoop(fn, n, stream);
}
