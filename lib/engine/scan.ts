/**
 * The scan engine: the single-pass decoupled look-back kernel of templates/scan.ts, its per-stream
 * workspace, per-context kernel cache and the cumsum/cumprod specs. Callers: array/scan.ts
 * (cumsum/cumprod) and kernels/scan.ts (the user scan kernels).
 */
import { DType } from '../base/dtype';
import { Stream, currentContext, streamHandle } from '../cuda/driver';
import { generatedKernel } from '../cuda/modules';
import { DeviceAllocation, usedOn, workspaceAllocations } from '../cuda/memory';
import * as cu from '../cuda/door';
import { PREAMBLE } from './templates/preamble';
import { REDUCE_PREAMBLE } from './templates/reduction';
import { SCAN_BLOCK, ScanSpec, scanItems, scanKernel, scanPacked } from './templates/scan';
import { workspaceKey } from './reduce';
import { ArgPacker, ParamValue } from '../cuda/args';

interface Workspace { alloc: DeviceAllocation; tiles: number; epoch: number }
const workspaces = new Map<string, Workspace>();
const MAX_ACC = 32;

/** Status/aggregate/inclusive arrays for `tiles` tiles on `stream` (per context), grown on demand. */
function workspace(tiles: number, stream: Stream | null | undefined):
  { ws: Workspace; status: bigint; aggs: bigint; incls: bigint; ticket: bigint; packed8: bigint; packed16: bigint } {
  const key = workspaceKey(stream);
  let ws = workspaces.get(key);
  if (!ws || ws.alloc.freed || ws.tiles < tiles) {
    const cap = Math.ceil(Math.max(1024, tiles, (ws?.tiles ?? 0) * 2) / 4) * 4; // keeps every region 16-byte aligned
    ws?.alloc.free(stream ?? null);
    // ticket | status (4 B) | aggregates | inclusive prefixes (MAX_ACC B each) | packed 8-byte | packed 16-byte words.
    // Each layout has its own region, so a stale word is only ever read as the same kind of word.
    const bytes = 16 + cap * (4 + 2 * MAX_ACC + 8 + 16);
    const alloc = new DeviceAllocation(bytes, stream ?? null);
    workspaceAllocations.add(alloc);
    cu.memset(alloc.ptr, 0, bytes / 4, 4, streamHandle(stream), false); // ordered before the scans on `stream` (a non-blocking one too)
    ws = { alloc, tiles: cap, epoch: 0 };
    workspaces.set(key, ws);
  }
  ws.epoch = (ws.epoch + 1) & 0x3fffffff || 1;
  const p = ws.alloc.ptr;
  const cap = BigInt(ws.tiles);
  const incls = p + 16n + 4n * cap + BigInt(MAX_ACC) * cap;
  const packed8 = incls + BigInt(MAX_ACC) * cap;
  return { ws, ticket: p, status: p + 16n, aggs: p + 16n + 4n * cap, incls, packed8, packed16: packed8 + 8n * cap };
}

const kernels = new WeakMap<ScanSpec, { generation: number; ctx: number; fn: NativeAddon.FunctionHandle }>();

function kernelFor(spec: ScanSpec): NativeAddon.FunctionHandle {
  const { generation, id: ctx } = currentContext();
  const hit = kernels.get(spec);
  if (hit && hit.generation === generation && hit.ctx === ctx) return hit.fn;
  const { source, name } = scanKernel(spec);
  const fn = generatedKernel(`${PREAMBLE}\n${REDUCE_PREAMBLE}\n${source}\n`, name);
  kernels.set(spec, { generation, ctx, fn });
  return fn;
}

const P = new ArgPacker(512);

/** Runs a scan over n elements with the given parameter values. @internal */
export function runScan(spec: ScanSpec, n: number, args: ParamValue[], stream: Stream | null | undefined,
  uses: readonly unknown[]): void {
  if (n === 0) return;
  const sh = usedOn(stream, uses); // memory of another stream: memory.ts useOn
  const tile = SCAN_BLOCK * scanItems(spec.accBytes);
  const tiles = Math.ceil(n / tile);
  const fn = kernelFor(spec);
  const w = workspace(tiles, stream);
  P.reset();
  for (const a of args) P.value(a);
  const aggs = !scanPacked(spec.accBytes) ? w.aggs : spec.accBytes === 4 ? w.packed8 : w.packed16;
  P.i64(n).ptr(w.status).ptr(aggs).ptr(w.incls).ptr(w.ticket).u32(w.ws.epoch);
  P.launch(fn, sh, tiles, 1, 1, SCAN_BLOCK, 1, 1, 0, true);
}

const specs = new Map<string, ScanSpec>();
function memo(key: string, build: () => ScanSpec): ScanSpec {
  let s = specs.get(key);
  if (!s) specs.set(key, (s = build()));
  return s;
}

const tag = (d: DType) => d.name.replace('complex', 'c').replace('float', 'f').replace('uint', 'u').replace('int', 'i');

/** The cumsum/cumprod spec: input dtype, accumulate dtype, output dtype, segmented or not. @internal */
export function cumSpec(op: 'cumsum' | 'cumprod', inp: DType, acc: DType, out: DType, segmented: boolean, nan = false): ScanSpec {
  nan &&= inp.kind === 'f' || inp.kind === 'c'; // nancumsum/nancumprod: a NaN element counts as 0 / 1
  const name = `nc_${nan ? 'nan' : ''}${op}_${tag(inp)}_${tag(acc)}_${tag(out)}${segmented ? '_seg' : ''}`;
  return memo(name, () => {
    const isInt = acc.kind === 'i' || acc.kind === 'u' || acc.kind === 'b';
    const c = isInt ? acc.accUnsignedC : acc.accC;
    const neutral = `(${c})${op === 'cumsum' ? 0 : 1}`;
    const value = (x: string) => (isInt ? `(${c})NC_TO(${acc.computeC}, nc_load(${x}))` : `NC_TO(${c}, nc_load(${x}))`);
    const conv = (x: string) => (nan ? `(nc_isnan(nc_load(${x})) ? ${neutral} : ${value(x)})` : value(x));
    const input = conv('in0[i]');
    return {
      vector: segmented ? undefined : { ptr: 'in0', storage: inp.storageC, bytes: inp.bytes, input: conv('nc_x') },
      name, acc: c, accBytes: acc.accBytes, scan: op === 'cumsum' ? 'a + b' : 'a * b', neutral,
      params: `${out.storageC} *__restrict__ out0, const ${inp.storageC} *__restrict__ in0${segmented ? ', const long long seglen' : ''}`,
      input, output: `out0[i] = NC_STORE(${out.storageC}, item);`,
      segment: segmented ? 'i % seglen == 0' : undefined,
    };
  });
}
