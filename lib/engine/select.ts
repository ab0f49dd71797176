/**
 * topk and partition of long rows by radix selection (templates/select.ts): one histogram launch
 * a key digit and a count of the keys below and at the k-th; then, topk, a write of the selected
 * elements into k slots a row, a sort of the slots (the short-row sort, or the radix sort past its
 * rows) and a gather, or, partition, a write of every element around the k-th. Everything is
 * enqueued on the stream; nothing is read back. The row state and histograms, the warp counts, the
 * slots and their ranks are allocated per call from the stream-ordered pool and freed in stream
 * order.
 */
import { DType, DTYPES } from '../base/dtype';
import { envNumber } from '../base/env';
import { Stream, multiprocessorCount } from '../cuda/driver';
import { DeviceAllocation, usedOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { gridFor, runRowSort, runSort, sortKernel } from './sort';
import { rowSortable } from './templates/sort_rows';
import { selectPickKernel } from './templates/quantile';
import {
  SELECT_STATE_WORDS, SELECT_TILE, selectCompactKernel, selectGatherKernel, selectHistKernel, selectKeyBytes,
} from './templates/select';

/**
 * Largest k, as a fraction of the row, that topk selects instead of sorting the row (tuning:
 * NODECUDA_TOPK_SELECT_FRACTION, 0 to 1; 0 turns the selection off): the selection reads the row
 * once a key byte plus twice, then sorts k elements; a sort of the row makes one scatter pass a byte.
 */
const SELECT_FRACTION = envNumber('NODECUDA_TOPK_SELECT_FRACTION', 0.25, { min: 0, max: 1, integer: false });

/**
 * Whether topk of k of each row of `len` elements of `dt` selects (real dtypes and bool; rows past
 * the short-row sort and past one tile, SELECT_TILE, even when NODECUDA_SORT_ROWS_MAX lowers it). @internal
 */
export function selectable(dt: DType, len: number, k: number): boolean {
  return dt.kind !== 'c' && !rowSortable(dt, len) && len > SELECT_TILE && k <= len * SELECT_FRACTION;
}

/** A topk selection: `rows` contiguous rows of `len` elements of `dt` at `input`. @internal */
export interface SelectRun {
  input: bigint; dt: DType; rows: number; len: number; k: number; largest: boolean;
  /** rows × k values (dt) and int64 columns, largest first with `largest`. */
  valuesOut: bigint; indicesOut: bigint;
  stream?: Stream | null; uses: readonly unknown[];
}

const P = new ArgPacker(256);
const UINTS: Record<number, DType> = { 1: DTYPES.uint8, 2: DTYPES.uint16, 4: DTYPES.uint32, 8: DTYPES.uint64 };

/**
 * Blocks a row and the elements each takes (a multiple of SELECT_TILE, about 4 tiles a block or more):
 * the fewest blocks a row that fill 95 % of the waves they make (a wave: `resident` blocks, SMs ×
 * the histogram kernel's occupancy), or the best fill there is. A partial last wave costs as much as a full
 * one: 256 rows of 65536 on 1056 resident blocks in 1280 blocks made 1.2 waves (1.01× torch; 4 a
 * row, 0.97 of one wave: 1.38×); 529 rows in one block each would fill half of one.
 */
function chunking(rows: number, len: number, resident: number): { B: number; chunk: number } {
  const most = Math.max(1, Math.ceil(len / (4 * SELECT_TILE)));
  let pick = { B: 1, chunk: Math.ceil(len / SELECT_TILE) * SELECT_TILE };
  let best = 0;
  for (let b = 1; b <= most; b++) {
    const chunk = Math.ceil(len / b / SELECT_TILE) * SELECT_TILE;
    const B = Math.ceil(len / chunk);
    const fill = (rows * B) / (Math.ceil((rows * B) / resident) * resident);
    if (fill > best + 1e-9) [pick, best] = [{ B, chunk }, fill];
    if (fill >= 0.95) break;
  }
  return pick;
}

/**
 * The kernels of `dt` (the histogram, the count and the write of `mode`, 1 topk or 2 partition,
 * none for 0, quantile's picks: all built before anything is launched), the row split, and
 * launchers of the digit passes and the ordered write.
 */
function selection(dt: DType, rows: number, len: number, k: number, flip: bigint, input: bigint, sh: NativeAddon.StreamHandle | null,
  mode: 0 | 1 | 2) {
  const kb = selectKeyBytes(dt);
  const hist = sortKernel(`sel:hist:${dt.name}`, () => selectHistKernel(dt));
  const count = mode ? sortKernel(`sel:compact0:${dt.name}`, () => selectCompactKernel(dt, 0)) : null;
  const write = mode ? sortKernel(`sel:compact${mode}:${dt.name}`, () => selectCompactKernel(dt, mode)) : null;
  // The digit passes read the rows most often: their occupancy sets the wave.
  const { B, chunk } = chunking(rows, len, cu.residentBlocks(hist, 256));
  const grid = rows * B;
  const stateBytes = rows * (SELECT_STATE_WORDS + 256) * 4;
  const common = (kk = k): ArgPacker => P.reset().ptr(input).u32(len).u32(B).u32(chunk).u64(flip).u32(kk);
  const compact = (fn: NativeAddon.FunctionHandle, ws: bigint, keys: bigint, cols: bigint, vals: bigint, idxs: bigint): void => {
    common().ptr(ws).ptr(ws + BigInt(stateBytes)).ptr(keys).ptr(cols).ptr(vals).ptr(idxs);
    P.launch(fn, sh, grid, 1, 1, 256, 1, 1, 0, true);
  };
  /** Zeroes the state and runs the digit passes for the kk-th key: each row's state then holds it. */
  const digits = (ws: bigint, kk = k): void => {
    cu.memset(ws, 0, stateBytes / 4, 4, sh, false);
    const histPtr = ws + BigInt(rows * SELECT_STATE_WORDS * 4);
    for (let q = 0; q < kb; q++) {
      common(kk).ptr(ws).ptr(histPtr).i32(8 * (kb - 1 - q)).i32(q === 0 ? 1 : 0).i32(q === kb - 1 ? 1 : 0);
      P.launch(hist, sh, grid, 1, 1, 256, 1, 1, 0, true);
    }
  };
  return {
    /** Bytes of the row state, histograms and two counts a warp. */
    bytes: stateBytes + grid * 64,
    digits,
    /** The digit passes, then a count of each warp's keys below and equal to the k-th. */
    narrow(ws: bigint): void {
      digits(ws);
      compact(count!, ws, 0n, 0n, 0n, 0n);
    },
    /** The ordered write of `mode`: topk's slots (keys, cols) or partition's output (vals, idxs). */
    write(ws: bigint, keys: bigint, cols: bigint, vals: bigint, idxs: bigint): void {
      compact(write!, ws, keys, cols, vals, idxs);
    },
  };
}

/** Runs topk by selection as `r` says (selectable(dt, len, k) must hold; k ≥ 1). @internal */
export function runSelect(r: SelectRun): void {
  const { dt, rows, len, k } = r;
  if (rows === 0) return;
  const kb = selectKeyBytes(dt);
  const flip = r.largest ? (1n << BigInt(8 * kb)) - 1n : 0n;
  const gather = sortKernel(`sel:gather:${dt.name}`, () => selectGatherKernel(dt));
  const sh = usedOn(r.stream, r.uses);
  const sel = selection(dt, rows, len, k, flip, r.input, sh, 1);
  const n = rows * k;
  const stream = r.stream ?? null;
  const allocs: DeviceAllocation[] = [];
  try {
    // One at a time: a failed allocation frees those before it.
    allocs.push(new DeviceAllocation(sel.bytes, stream));
    allocs.push(new DeviceAllocation(n * kb, stream)); // the slots' keys
    allocs.push(new DeviceAllocation(n * 4, stream)); // their columns
    allocs.push(new DeviceAllocation(n * 8, stream)); // their ranks after the sort
    const [ws, keys, cols, ranks] = allocs.map((a) => a.ptr);
    sel.narrow(ws);
    sel.write(ws, keys, cols, 0n, 0n);
    const kdt = UINTS[kb];
    // The short-row sort gives a row one block: fine for short slots or many rows, but one block
    // sorting 4096 slots alone on the GPU (one row, k = 4096) took longer than the radix sort of
    // 2^20 slots across it (bench/topk-fraction.js, H200). Past 1024 slots it needs a block an SM.
    if (rowSortable(kdt, k) && (k <= 1024 || rows * k >= multiprocessorCount() * 4096)) {
      runRowSort({ input: keys, dt: kdt, rows, len: k, outLen: k, reverse: false, indicesOut: ranks, stream: r.stream, uses: [] });
    } else {
      runSort({
        input: keys, dt: kdt, n, len: k, stages: rows > 1 ? [{ kind: 'value' }, { kind: 'row', rows }] : [{ kind: 'value' }],
        indicesOut: ranks, stream: r.stream, uses: [],
      });
    }
    P.reset().ptr(r.input).u32(len).u32(k).u64n(n).ptr(ranks).ptr(cols).ptr(r.valuesOut).ptr(r.indicesOut);
    P.launch(gather, sh, gridFor(n), 1, 1, 256, 1, 1, 0, true);
  } finally {
    for (const a of allocs) a.free(stream);
  }
}

/** A partition by selection: `rows` contiguous rows of `len` elements of `dt` at `input`, around position `kth`. @internal */
export interface PartitionRun {
  input: bigint; dt: DType; rows: number; len: number; kth: number;
  /** rows × len values (dt) and/or int64 columns; neither may meet the input. */
  valuesOut?: bigint; indicesOut?: bigint;
  stream?: Stream | null; uses: readonly unknown[];
}

/**
 * Whether partition of rows of `len` elements of `dt` around `kths` positions selects (one kth;
 * real dtypes and bool; rows as selectable() takes them; the selection not turned off). @internal
 */
export function partitionable(dt: DType, len: number, kths: number): boolean {
  return dt.kind !== 'c' && kths === 1 && !rowSortable(dt, len) && len > SELECT_TILE && SELECT_FRACTION > 0;
}

/**
 * Partitions each row around position `kth` (0 ≤ kth < len): the elements smaller than the one a
 * sort puts there, then those equal to it, then the larger ones, each group in column order. @internal
 */
export function runPartition(r: PartitionRun): void {
  const { dt, rows, len } = r;
  if (rows === 0) return;
  const sh = usedOn(r.stream, r.uses);
  const sel = selection(dt, rows, len, r.kth + 1, 0n, r.input, sh, 2);
  const ws = new DeviceAllocation(sel.bytes, r.stream ?? null);
  try {
    sel.narrow(ws.ptr);
    sel.write(ws.ptr, 0n, 0n, r.valuesOut ?? 0n, r.indicesOut ?? 0n);
  } finally {
    ws.free(r.stream ?? null);
  }
}

/** Order statistics by selection: `rows` contiguous rows of `len` elements of `dt` at `input`. @internal */
export interface RanksRun {
  input: bigint; dt: DType; rows: number; len: number;
  /** Positions in the ascending sort (NaNs last) to find, each in [0, len). */
  ranks: readonly number[];
  /** rows × ranks.length elements of dt: row r's element at ranks[j] goes to r·R + j (its bits as they are). */
  out: bigint;
  stream?: Stream | null; uses: readonly unknown[];
}

/**
 * Whether finding `ranks` positions of rows of `len` elements of `dt` by selection beats sorting
 * the rows: the rows partition would select (partitionable), the digit passes, one a key byte and
 * rank, at most 24, and at most 6 ranks. A digit pass (a read) cost about a fifth of a sort's
 * scatter pass here (H200: a float32 median, 3 ranks, 12 passes, 0.42-0.46 ms against 0.9 ms for
 * the sort of 2^24), and a sort makes one pass a key byte plus its prep: 1-byte keys with 24 ranks
 * would read 24 times where the sort reads and writes twice. @internal
 */
export function ranksSelectable(dt: DType, len: number, ranks: number): boolean {
  return partitionable(dt, len, 1) && ranks <= 6 && ranks * selectKeyBytes(dt) <= 24;
}

/** Finds each row's element at each of `r.ranks` (a sort's positions) by selection: digit passes and a pick a rank. @internal */
export function runRanks(r: RanksRun): void {
  const { dt, rows, len } = r;
  if (rows === 0 || r.ranks.length === 0) return;
  const pick = sortKernel(`sel:pick:${dt.name}`, () => selectPickKernel(dt));
  const sh = usedOn(r.stream, r.uses);
  const sel = selection(dt, rows, len, 1, 0n, r.input, sh, 0);
  const ws = new DeviceAllocation(sel.bytes, r.stream ?? null);
  try {
    r.ranks.forEach((rank, j) => {
      sel.digits(ws.ptr, rank + 1);
      P.reset().ptr(ws.ptr).ptr(r.out).u64n(rows).i32(r.ranks.length).i32(j);
      P.launch(pick, sh, gridFor(rows), 1, 1, 256, 1, 1, 0, true);
    });
  } finally {
    ws.free(r.stream ?? null);
  }
}
