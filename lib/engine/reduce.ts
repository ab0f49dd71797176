/**
 * The reduction engine: splits an input layout into kept dims (outputs, C order) and reduced
 * dims, collapses both, picks a variant of templates/reduction.ts for the shape (rows with G
 * blocks per output, a warp per output, or column tiles split over blockIdx.y), compiles it once
 * per spec and variant, packs the parameters and launches it with one native call: one kernel
 * per reduction. Partials and the last-block-done counters live in per-(context, stream)
 * workspaces (counters left zeroed by the kernels), so a call allocates nothing but its result.
 */
import { envFlag, envNumber } from '../base/env';
import { Stream, currentContext, multiprocessorCount, streamHandle } from '../cuda/driver';
import { generatedKernel } from '../cuda/modules';
import { DeviceAllocation, workspaceAllocations } from '../cuda/memory';
import * as cu from '../cuda/door';
import { ArgPacker, ParamValue } from '../cuda/args';
import { collapseDims } from '../base/shape';
import { PREAMBLE } from './templates/preamble';
import { REDUCE_BLOCK, REDUCE_PREAMBLE, ReduceSpec, ReduceVariant, reduceKernel } from './templates/reduction';


export interface ReduceRun {
  /** Logical shape of the reduced operand(s). */
  shape: readonly number[];
  /** Element strides (offsets `i` handed to the map are computed with these). */
  strides: readonly number[];
  /** Reduced axes (normalized, any order). */
  axes: readonly number[];
  /** The reduced dims may be reordered for locality (false when `r` is observable, e.g. argmax). */
  orderFree: boolean;
  /** Values of spec.params, in order. */
  args: ParamValue[];
  /** Output pointer: `m` contiguous elements of spec.out. */
  out: bigint;
  /** Bytes of one accumulator (for partials). */
  accBytes: number;
  /** For the vector path: bytes of each vectorized array's element and its address modulo 16. */
  vec?: Array<{ bytes: number; align16: number }>;
  stream?: Stream | null;
}

const COUNTERS = 65536;
// Blocks launched per resident block slot (tuning: NODECUDA_RED_WAVES, NODECUDA_RED_COLS_WAVES).
// Measured on an H200 (float32, GB/s): sum of 2^28 4122 with 1 wave, 4164 with 2; sum over axis 0
// of 16384² 3671 with 1, 3876 with 2, 3910 with 4. A later sweep (bench/sweep.js, H200,
// 2026-11-27; batch GB/s, waves 1/2/3/4): sum 3746/3845/4022/3573, max 4021/3577/3997/3679, dot
// 3940/3945/4238/4176: three waves, which leave less of a ragged last wave.
const WAVES = envNumber('NODECUDA_RED_WAVES', 3, { min: 0.125, max: 64, integer: false });
const COLS_WAVES = envNumber('NODECUDA_RED_COLS_WAVES', 2, { min: 0.125, max: 64, integer: false });
/** Whether the cols variant may load each thread's adjacent outputs as one vector (tuning: NODECUDA_RED_COLS_VEC=0/1). */
const COLS_VEC = envFlag('NODECUDA_RED_COLS_VEC', true);
const INT32_MAX = 2 ** 31 - 1;
const kernelCache = new WeakMap<ReduceSpec, Map<number, Kernel>>();
const workspaces = new Map<string, DeviceAllocation>();
const partialSpaces = new Map<string, DeviceAllocation>();
const MIN_PARTIAL_BYTES = 64 * 1024;
const streamIds = new WeakMap<Stream, number>();
let nextStreamId = 1;

/** Blocks of `k` that fit on the device at once (SMs × blocks per SM at 256 threads). */
function residentBlocks(k: Kernel): number {
  return multiprocessorCount() * k.perSM;
}

/** Key of a per-(current context, stream) workspace: launches on one stream may share one. @internal */
export function workspaceKey(stream: Stream | null | undefined): string {
  const { generation, id } = currentContext();
  let sid = 0;
  if (stream) {
    sid = streamIds.get(stream) ?? 0;
    if (!sid) streamIds.set(stream, (sid = nextStreamId++));
  }
  return `${id}:${generation}:${sid}`;
}

/** Zeroed counters for the current context and `stream` (kernels reset what they use). */
export function counters(stream: Stream | null | undefined): bigint {
  const key = workspaceKey(stream);
  let ws = workspaces.get(key);
  if (!ws || ws.freed) {
    ws = new DeviceAllocation(COUNTERS * 4, stream ?? null);
    workspaceAllocations.add(ws);
    cu.memset(ws.ptr, 0, COUNTERS, 4, streamHandle(stream), false); // ordered before the launches on `stream`
    workspaces.set(key, ws);
  }
  return ws.ptr;
}

/**
 * `bytes` of partials for a launch on `stream` (per context), grown on demand. Launches on one
 * stream run in order and a kernel has read its partials (last block) before it ends, so the next
 * launch on the stream may reuse them; a grown workspace frees the old one in stream order.
 */
function partials(bytes: number, stream: Stream | null | undefined): bigint {
  const key = workspaceKey(stream);
  let ws = partialSpaces.get(key);
  if (!ws || ws.freed || ws.size < bytes) {
    const size = Math.max(MIN_PARTIAL_BYTES, 2 ** Math.ceil(Math.log2(bytes)), ws && !ws.freed ? ws.size * 2 : 0);
    if (ws && !ws.freed) {
      workspaceAllocations.delete(ws);
      ws.free(stream ?? null);
    }
    ws = new DeviceAllocation(size, stream ?? null);
    workspaceAllocations.add(ws);
    partialSpaces.set(key, ws);
  }
  return ws.ptr;
}

interface Kernel { generation: number; ctx: number; fn: NativeAddon.FunctionHandle; perSM: number }

function kernelFor(spec: ReduceSpec, v: ReduceVariant): Kernel {
  const { generation, id: ctx } = currentContext();
  let perSpec = kernelCache.get(spec);
  if (!perSpec) kernelCache.set(spec, (perSpec = new Map<number, Kernel>()));
  const key = ((v.kind === 'rows' ? 0 : v.kind === 'warp' ? 1 : 2) * 32 + v.e) * 4096 + (v.nk * 64 + v.nr) * 2 + (v.wide ? 1 : 0);
  const hit = perSpec.get(key);
  if (hit && hit.generation === generation && hit.ctx === ctx) return hit;
  const { source, name } = reduceKernel(spec, v);
  const fn = generatedKernel(`${PREAMBLE}\n${REDUCE_PREAMBLE}\n${source}\n`, name);
  // Occupancy decides how many blocks a single wave holds (registers may allow fewer than 8).
  const perSM = Math.max(1, cu.occupancyMaxActiveBlocks(fn, REDUCE_BLOCK, 0));
  const k: Kernel = { generation, ctx, fn, perSM };
  perSpec.set(key, k);
  return k;
}

interface Dims { shape: number[]; strides: number[] }

const NO_KEPT: Dims = Object.freeze({ shape: Object.freeze([1]) as number[], strides: Object.freeze([0]) as number[] });
const UNIT_STRIDE = Object.freeze([1]) as number[];

function split(run: ReduceRun): { kept: Dims; red: Dims; m: number; k: number } {
  if (run.axes.length === run.shape.length) {
    // Every dim reduced and the elements C-contiguous: one reduced run of k (the common case).
    let k = 1;
    let contiguous = true;
    for (let d = run.shape.length - 1; d >= 0; d--) {
      if (run.shape[d] !== 1 && run.strides[d] !== k) contiguous = false;
      k *= run.shape[d];
    }
    if (contiguous) return { kept: NO_KEPT, red: { shape: [k], strides: UNIT_STRIDE }, m: 1, k };
  }
  const axes = new Set(run.axes);
  const kept: Dims = { shape: [], strides: [] };
  let red: Array<[number, number]> = [];
  run.shape.forEach((n, d) => {
    if (axes.has(d)) red.push([n, run.strides[d]]);
    else {
      kept.shape.push(n);
      kept.strides.push(run.strides[d]);
    }
  });
  if (run.orderFree) red = red.slice().sort((a, b) => Math.abs(b[1]) - Math.abs(a[1]));
  const m = kept.shape.reduce((a, b) => a * b, 1);
  const k = red.reduce((a, b) => a * b[0], 1);
  const ck = kept.shape.length ? collapseDims(kept.shape, [kept.strides]) : { shape: [1], strides: [[0]] };
  const cr = red.length ? collapseDims(red.map((x) => x[0]), [red.map((x) => x[1])]) : { shape: [1], strides: [[0]] };
  return { kept: padded(ck.shape, ck.strides[0]), red: padded(cr.shape, cr.strides[0]), m, k };
}

/**
 * Dims padded in front (size 1, stride 0) to 1, 2, 4 or more: kernels are specialized on the dim
 * count, and the classes keep the number of compiled variants small.
 */
function padded(shape: number[], strides: number[]): Dims {
  const n = shape.length <= 2 ? shape.length : Math.max(4, shape.length);
  const pad = n - shape.length;
  return { shape: [...Array<number>(pad).fill(1), ...shape], strides: [...Array<number>(pad).fill(0), ...strides] };
}

const P = new ArgPacker(512);

/** Elements between the first and last element a dims' offsets reach. */
function extent(d: Dims): number {
  let e = 0;
  for (let j = 0; j < d.shape.length; j++) e += Math.abs(d.strides[j]) * Math.max(d.shape[j] - 1, 0);
  return e;
}

/**
 * Vector width of the cols variant: 16 bytes of the widest input (at most 8 elements) when the spec has a vector form
 * (NODECUDA_RED_COLS_VEC=0: never) and each thread's adjacent outputs are contiguous and 16-byte
 * aligned in every reduced element (the kept innermost run and the outputs a multiple of it, every
 * other stride too, the pointers aligned); else 1.
 */
function colsVector(spec: ReduceSpec, run: ReduceRun, kept: Dims, red: Dims, m: number): number {
  if (!spec.vec || !COLS_VEC) return 1;
  const e = vectorWidth(run, 8); // at most 8 accumulators a thread
  const last = kept.shape.length - 1;
  const ok = e > 1 && m % e === 0 && kept.shape[last] % e === 0 && kept.strides.every((s, j) => j === last || s % e === 0)
    && red.strides.every((s) => s % e === 0);
  return ok ? e : 1;
}

/**
 * Elements in 16 bytes of the widest vectorized input (at most `cap`) when every vectorized
 * pointer is aligned to that many of its elements; else 1.
 */
function vectorWidth(run: ReduceRun, cap = 16): number {
  if (!run.vec?.length) return 1;
  const e = Math.min(cap, Math.max(1, 16 / Math.max(1, ...run.vec.map((x) => x.bytes))));
  return e > 1 && run.vec.every((x) => x.align16 % (e * x.bytes) === 0) ? e : 1;
}

/** Runs one reduction (see ReduceRun); `m` outputs are written to run.out. */
export function runReduction(spec: ReduceSpec, run: ReduceRun): void {
  const { kept, red, m, k } = split(run);
  if (m === 0) return;
  const span = Math.max(m, k) + extent(kept) + extent(red);
  const wide = span > INT32_MAX;
  const rUnit = red.shape.length === 1 && (red.strides[0] === 1 || k === 1);
  const keptUnit = kept.strides[kept.strides.length - 1] === 1 && kept.shape[kept.shape.length - 1] >= 32;
  const nk = kept.shape.length, nr = red.shape.length;
  let v: ReduceVariant;
  if (!rUnit && keptUnit && k > 1) v = { kind: 'cols', nk, nr, wide, e: colsVector(spec, run, kept, red, m) };
  else if (k < 1024 && m > 1) v = { kind: 'warp', nk, nr, wide, e: 1 };
  else {
    let e = spec.vec && rUnit ? vectorWidth(run) : 1;
    if (!kept.strides.every((s) => s % e === 0)) e = 1;
    v = { kind: 'rows', nk, nr, wide, e };
  }
  const kern = kernelFor(spec, v);
  const fn = kern.fn;
  const T = residentBlocks(kern);
  let G = 1;
  let S = 1;
  if (v.kind === 'cols') {
    const tiles = Math.ceil(m / (32 * v.e));
    S = tiles > COUNTERS ? 1 : Math.max(1, Math.min(Math.ceil((T * COLS_WAVES) / tiles), Math.floor(k / 64), 65535));
  } else if (v.kind === 'rows' && m < T && m <= COUNTERS) {
    G = Math.max(1, Math.min(Math.ceil((T * WAVES) / m), Math.ceil(k / (REDUCE_BLOCK * v.e * 4))));
  }
  const partialCount = v.kind === 'cols' ? (S > 1 ? S * m : 0) : G > 1 ? G * m : 0;
  const stream = run.stream ?? null;
  P.reset().ptr(run.out);
  for (const x of run.args) P.value(x);
  for (const n of kept.shape) P.idx(n, wide);
  for (const n of kept.strides) P.idx(n, wide);
  for (const n of red.shape) P.idx(n, wide);
  for (const n of red.strides) P.idx(n, wide);
  P.idx(m, wide).idx(k, wide).u32(v.kind === 'cols' ? S : G);
  P.ptr(partialCount ? partials(partialCount * run.accBytes, stream) : 0n).ptr(partialCount ? counters(stream) : 0n);
  const sh = streamHandle(stream);
  if (v.kind === 'cols') P.launch(fn, sh, Math.ceil(m / (32 * v.e)), S, 1, 32, 8, 1, 0, true);
  else if (v.kind === 'warp') P.launch(fn, sh, Math.ceil(m / (REDUCE_BLOCK / 32)), 1, 1, REDUCE_BLOCK, 1, 1, 0, true);
  else P.launch(fn, sh, m * G, 1, 1, REDUCE_BLOCK, 1, 1, 0, true);
}
