/**
 * topk of long rows by radix selection (templates/select.ts): one histogram launch a key digit,
 * a count and a write of the selected elements into k slots a row, a sort of the slots (the
 * short-row sort, or the radix sort past its rows), a gather. Everything is enqueued on the
 * stream; nothing is read back. The row state and histograms, the block counts, the slots and
 * their ranks are allocated per call from the stream-ordered pool and freed in stream order.
 */
import { DType, DTYPES } from '../base/dtype';
import { envNumber } from '../base/env';
import { Stream, multiprocessorCount } from '../cuda/driver';
import { DeviceAllocation, usedOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { ArgPacker } from '../cuda/args';
import { runRowSort, runSort, sortKernel } from './sort';
import { rowSortable } from './templates/sort_rows';
import {
  SELECT_STATE_WORDS, SELECT_TILE, selectCompactKernel, selectGatherKernel, selectHistKernel, selectKeyBytes,
} from './templates/select';

/**
 * Largest k, as a fraction of the row, that topk selects instead of sorting the row (tuning:
 * NODECUDA_TOPK_SELECT_FRACTION, 0 to 1; 0 turns the selection off): the selection reads the row
 * once a key byte plus twice, then sorts k elements; a sort of the row makes one scatter pass a byte.
 */
const SELECT_FRACTION = envNumber('NODECUDA_TOPK_SELECT_FRACTION', 0.25, { min: 0, max: 1 });

/** Whether topk of k of each row of `len` elements of `dt` selects (real dtypes and bool; rows past the short-row sort). @internal */
export function selectable(dt: DType, len: number, k: number): boolean {
  return dt.kind !== 'c' && !rowSortable(dt, len) && k <= len * SELECT_FRACTION;
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
 * Blocks a row and the elements each takes (a multiple of SELECT_TILE): at least 4 tiles a block,
 * and at most the 8 blocks an SM holds in all when rows are few (one wave: a second, partial one
 * would cost as much as the first).
 */
function chunking(rows: number, len: number): { B: number; chunk: number } {
  const want = Math.max(1, Math.min(Math.ceil(len / (4 * SELECT_TILE)), Math.floor((multiprocessorCount() * 8) / rows)));
  const chunk = Math.ceil(len / want / SELECT_TILE) * SELECT_TILE;
  return { B: Math.ceil(len / chunk), chunk };
}

/** Runs topk by selection as `r` says (selectable(dt, len, k) must hold; k ≥ 1). @internal */
export function runSelect(r: SelectRun): void {
  const { dt, rows, len, k } = r;
  if (rows === 0) return;
  const kb = selectKeyBytes(dt);
  const hist = sortKernel(`sel:hist:${dt.name}`, () => selectHistKernel(dt));
  const compact = sortKernel(`sel:compact:${dt.name}`, () => selectCompactKernel(dt));
  const gather = sortKernel(`sel:gather:${dt.name}`, () => selectGatherKernel(dt));
  const sh = usedOn(r.stream, r.uses);
  const { B, chunk } = chunking(rows, len);
  const grid = rows * B;
  const n = rows * k;
  const stateBytes = rows * (SELECT_STATE_WORDS + 256) * 4;
  const stream = r.stream ?? null;
  const allocs: DeviceAllocation[] = [];
  try {
    // One at a time: a failed allocation frees those before it.
    const ws = new DeviceAllocation(stateBytes + grid * 64, stream); // + two counts a warp
    allocs.push(ws);
    allocs.push(new DeviceAllocation(n * kb, stream)); // the slots' keys
    allocs.push(new DeviceAllocation(n * 4, stream)); // their columns
    allocs.push(new DeviceAllocation(n * 8, stream)); // their ranks after the sort
    const [, keys, cols, ranks] = allocs.map((a) => a.ptr);
    const state = ws.ptr;
    const histPtr = state + BigInt(rows * SELECT_STATE_WORDS * 4);
    const counts = state + BigInt(stateBytes);
    cu.memset(state, 0, stateBytes / 4, 4, sh, false);
    const flip = r.largest ? (kb === 8 ? 0xffffffffffffffffn : (1n << BigInt(8 * kb)) - 1n) : 0n;
    const common = (): ArgPacker => P.reset().ptr(r.input).u32(len).u32(B).u32(chunk).u64(flip).u32(k).ptr(state);
    for (let q = 0; q < kb; q++) {
      common().ptr(histPtr).i32(8 * (kb - 1 - q)).i32(q === 0 ? 1 : 0).i32(q === kb - 1 ? 1 : 0);
      P.launch(hist, sh, grid, 1, 1, 256, 1, 1, 0, true);
    }
    for (const write of [0, 1]) {
      common().ptr(counts).ptr(keys).ptr(cols).i32(write);
      P.launch(compact, sh, grid, 1, 1, 256, 1, 1, 0, true);
    }
    const kdt = UINTS[kb];
    if (rowSortable(kdt, k)) {
      runRowSort({ input: keys, dt: kdt, rows, len: k, outLen: k, reverse: false, indicesOut: ranks, stream: r.stream, uses: [] });
    } else {
      runSort({
        input: keys, dt: kdt, n, len: k, stages: rows > 1 ? [{ kind: 'value' }, { kind: 'row', rows }] : [{ kind: 'value' }],
        indicesOut: ranks, stream: r.stream, uses: [],
      });
    }
    P.reset().ptr(r.input).u32(len).u32(k).u64n(n).ptr(ranks).ptr(cols).ptr(r.valuesOut).ptr(r.indicesOut);
    P.launch(gather, sh, Math.max(1, Math.min(Math.ceil(n / 256), multiprocessorCount() * 16)), 1, 1, 256, 1, 1, 0, true);
  } finally {
    for (const a of allocs) a.free(stream);
  }
}
