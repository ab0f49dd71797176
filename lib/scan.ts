/**
 * Scans: cumsum/cumprod (NumPy, with axis), PyCUDA's InclusiveScanKernel/ExclusiveScanKernel and
 * PyOpenCL's GenericScanKernel (input expression, output statement, segments), all on the
 * single-pass decoupled look-back kernel of templates/scan.ts.
 */
import { DTYPES, DType, DTypeLike, dtype as toDType } from './dtype';
import { describe, rangeError, typeError } from './errors';
import { Stream, currentContext, streamHandle } from './driver';
import { generatedKernel } from './compiler';
import { GPUArray } from './gpuarray';
import { DeviceAllocation, useOn, workspaceAllocations } from './memory';
import { native } from './native';
import { assign } from './operators';
import { canCast } from './promote';
import { normalizeAxis } from './shape';
import { PREAMBLE } from './templates/preamble';
import { REDUCE_PREAMBLE } from './templates/reduction';
import { SCAN_BLOCK, ScanSpec, scanItems, scanKernel, scanPacked } from './templates/scan';
import { computeType, storageType } from './templates/elementwise';
import { ParamValue, Params, UNSIGNED_C, accBytes, accType, workspaceKey } from './reduce_engine';
import { UserArgs, isOptions, parseArguments } from './user_args';

interface Workspace { alloc: DeviceAllocation; tiles: number; epoch: number }
const workspaces = new Map<string, Workspace>();
const MAX_ACC = 32;

/** Status/aggregate/inclusive arrays for `tiles` tiles on `stream` (per context), grown on demand. */
function workspace(tiles: number, stream: Stream | null | undefined): { ws: Workspace; status: bigint; aggs: bigint; incls: bigint; ticket: bigint; packed8: bigint; packed16: bigint } {
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
    native.memset(alloc.ptr, 0, bytes / 4, 4, null, false);
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

const P = new Params();

/** Runs a scan over n elements with the given parameter values. @internal */
export function runScan(spec: ScanSpec, n: number, args: ParamValue[], stream: Stream | null | undefined,
  uses: readonly unknown[]): void {
  if (n === 0) return;
  const sh = streamHandle(stream);
  for (const u of uses) useOn(u, sh); // memory of another stream: memory.ts useOn
  const tile = SCAN_BLOCK * scanItems(spec.accBytes);
  const tiles = Math.ceil(n / tile);
  const fn = kernelFor(spec);
  const w = workspace(tiles, stream);
  P.reset();
  for (const a of args) P.value(a);
  const aggs = !scanPacked(spec.accBytes) ? w.aggs : spec.accBytes === 4 ? w.packed8 : w.packed16;
  P.value({ dtype: DTYPES.int64, value: BigInt(n) }).ptr(w.status).ptr(aggs).ptr(w.incls).ptr(w.ticket).u32(w.ws.epoch);
  P.launch(fn, stream, [tiles], [SCAN_BLOCK]);
}

const specs = new Map<string, ScanSpec>();
function memo(key: string, build: () => ScanSpec): ScanSpec {
  let s = specs.get(key);
  if (!s) specs.set(key, (s = build()));
  return s;
}

const tag = (d: DType) => d.name.replace('complex', 'c').replace('float', 'f').replace('uint', 'u').replace('int', 'i');

/** The cumsum/cumprod spec: input dtype, accumulate dtype, output dtype, segmented or not. @internal */
export function cumSpec(op: 'cumsum' | 'cumprod', inp: DType, acc: DType, out: DType, segmented: boolean): ScanSpec {
  const name = `nc_${op}_${tag(inp)}_${tag(acc)}_${tag(out)}${segmented ? '_seg' : ''}`;
  return memo(name, () => {
    const isInt = acc.kind === 'i' || acc.kind === 'u' || acc.kind === 'b';
    const c = isInt ? UNSIGNED_C[acc.name] : accType(acc);
    const conv = (x: string) => (isInt ? `(${c})NC_TO(${computeType(acc)}, nc_load(${x}))` : `NC_TO(${c}, nc_load(${x}))`);
    const input = conv('in0[i]');
    return {
      vector: segmented ? undefined : { ptr: 'in0', storage: storageType(inp), bytes: inp.bytes, input: conv('nc_x') },
      name, acc: c, accBytes: accBytes(acc), scan: op === 'cumsum' ? 'a + b' : 'a * b', neutral: `(${c})${op === 'cumsum' ? 0 : 1}`,
      params: `${storageType(out)} *__restrict__ out0, const ${storageType(inp)} *__restrict__ in0${segmented ? ', const long long seglen' : ''}`,
      input, output: `out0[i] = NC_STORE(${storageType(out)}, item);`,
      segment: segmented ? 'i % seglen == 0' : undefined,
    };
  });
}

/** Options of cumsum/cumprod. */
export interface ScanOptions {
  /** Axis to scan along; the flattened array when null/undefined (NumPy). */
  axis?: number | null;
  /** Accumulate and return in this dtype. */
  dtype?: DTypeLike;
  /** Write the result here (same shape; dtype castable 'same_kind'). */
  out?: GPUArray;
  stream?: Stream | null;
}

function cumulative(op: 'cumsum' | 'cumprod') {
  return (a: GPUArray, opts: ScanOptions = {}): GPUArray => {
    if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${op}: expected a GPUArray. Received ${describe(a)}`);
    a.check();
    const d = a.dtype;
    const acc = opts.dtype !== undefined ? toDType(opts.dtype)
      : d.kind === 'b' || d.kind === 'i' ? DTYPES.int64 : d.kind === 'u' ? DTYPES.uint64 : d;
    const flat = opts.axis === undefined || opts.axis === null;
    const axis = flat ? 0 : normalizeAxis(opts.axis as number, a.ndim);
    const shape = flat ? [a.size] : a.shape.slice();
    const temps: GPUArray[] = [];
    try {
      // The scanned axis last and contiguous.
      let src = a;
      let perm: number[] | null = null;
      if (!flat && axis !== a.ndim - 1) {
        perm = a.shape.map((_, i) => i).filter((i) => i !== axis).concat([axis]);
        src = a.transpose(perm);
      }
      if (!src.flags.cContiguous) temps.push((src = src.copy()));
      const len = flat ? a.size : a.shape[axis];
      const segmented = !flat && len !== a.size;
      const out = opts.out;
      if (out !== undefined) {
        if (!(out instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${op}: out must be a GPUArray`);
        out.check();
        if (out.shape.length !== shape.length || out.shape.some((n, i) => n !== shape[i])) {
          throw rangeError('ERR_SHAPE_MISMATCH', `${op}: out has shape (${out.shape.join(',')}); the result has shape (${shape.join(',')})`);
        }
        if (!canCast(acc, out.dtype, 'same_kind')) {
          throw typeError('ERR_INVALID_DTYPE', `${op}: cannot store a ${acc.name} result in a ${out.dtype.name} out array (same_kind casting)`);
        }
      }
      const direct = out && !perm && out.dtype === acc && out.flags.cContiguous && !overlapping(out, a);
      const dst = direct ? out! : GPUArray.allocate(src.shape, acc, opts.stream);
      if (!direct) temps.push(dst);
      const spec = cumSpec(op, src.dtype, acc, acc, segmented);
      const args: ParamValue[] = [{ ptr: dst.address }, { ptr: src.address }];
      if (segmented) args.push({ dtype: DTYPES.int64, value: BigInt(len) });
      runScan(spec, src.size, args, opts.stream, [dst, src]);
      if (direct) return out!;
      const result = out ?? GPUArray.allocate(shape, acc, opts.stream);
      let view = flat ? dst.reshape(shape) : dst;
      if (perm) view = view.transpose(perm.map((_, i) => perm!.indexOf(i)));
      assign(result, view, opts.stream);
      return result;
    } finally {
      for (const t of temps) t.dispose();
    }
  };
}

function overlapping(x: GPUArray, y: GPUArray): boolean {
  return x.alloc === y.alloc;
}

/**
 * Cumulative sum (NumPy): flattened without `axis`; ints accumulate in 64 bits.
 * @example
 * gpuarray.cumsum(a, { axis: 1 });
 */
export const cumsum = cumulative('cumsum');
/** Cumulative product. @example gpuarray.cumprod(a) */
export const cumprod = cumulative('cumprod');

declare module './gpuarray' {
  interface GPUArray {
    cumsum(opts?: ScanOptions): GPUArray;
    cumprod(opts?: ScanOptions): GPUArray;
  }
}
const proto = GPUArray.prototype as unknown as Record<string, unknown>;
proto.cumsum = function (this: GPUArray, opts?: ScanOptions) { return cumsum(this, opts); };
proto.cumprod = function (this: GPUArray, opts?: ScanOptions) { return cumprod(this, opts); };

// ---- kernel builders --------------------------------------------------------------------------

let builderCount = 0;

function scanCall(spec: ScanSpec, dt: DType, what: string) {
  return (input: GPUArray, output?: GPUArray | { stream?: Stream | null }, opts: { stream?: Stream | null } = {}): GPUArray => {
    if (output !== undefined && !(output instanceof GPUArray)) {
      opts = output;
      output = undefined;
    }
    for (const [x, name] of [[input, 'input'], [output ?? input, 'output']] as const) {
      if (!(x instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${what}: ${name} must be a GPUArray. Received ${describe(x)}`);
      x.check();
      if (x.dtype !== dt) throw typeError('ERR_INVALID_DTYPE', `${what}: ${name} is ${x.dtype.name}; this kernel scans ${dt.name}`);
      if (!x.flags.cContiguous) throw typeError('ERR_NOT_CONTIGUOUS', `${what}: ${name} must be C-contiguous (make a contiguous copy with .copy())`);
    }
    const out = (output as GPUArray | undefined) ?? input;
    if (out.size !== input.size) throw rangeError('ERR_SHAPE_MISMATCH', `${what}: output has ${out.size} elements; input has ${input.size}`);
    runScan(spec, input.size, [{ ptr: out.address }, { ptr: input.address }], opts.stream, [out, input]);
    return out;
  };
}

function builderSpec(dt: DType, scanExpr: string, neutral: string | undefined, exclusive: boolean, preamble?: string): ScanSpec {
  if (typeof scanExpr !== 'string' || !scanExpr.trim()) throw typeError('ERR_INVALID_ARG_TYPE', 'scanExpr must be a C expression in a and b');
  const c = accType(dt);
  return {
    name: `nc_uscan${builderCount++}`, acc: c, accBytes: accBytes(dt), scan: scanExpr,
    neutral: neutral === undefined ? `${c}()` : `(${c})(${neutral})`,
    params: `${storageType(dt)} *__restrict__ out0, const ${storageType(dt)} *__restrict__ in0`,
    input: `NC_TO(${c}, nc_load(in0[i]))`, output: `out0[i] = NC_STORE(${storageType(dt)}, ${exclusive ? 'prev_item' : 'item'});`,
    preamble,
    vector: { ptr: 'in0', storage: storageType(dt), bytes: dt.bytes, input: `NC_TO(${c}, nc_load(nc_x))` },
  };
}

/** A callable scan kernel: `k(input, output?, { stream })` → output (in place by default). */
export interface ScanKernel {
  (input: GPUArray, output?: GPUArray, opts?: { stream?: Stream | null }): GPUArray;
  (input: GPUArray, opts?: { stream?: Stream | null }): GPUArray;
}

/**
 * pycuda.scan.InclusiveScanKernel: out[i] = in[0] ⊕ … ⊕ in[i] for an associative `scanExpr` in
 * `a` and `b`.
 * @example
 * const k = new InclusiveScanKernel('int32', 'a + b');
 * k(x); // in place
 */
export const InclusiveScanKernel = function (this: unknown, dtype: DTypeLike, scanExpr: string, neutral?: string | number,
  opts: { preamble?: string } = {}): ScanKernel {
  const dt = toDType(dtype);
  const spec = builderSpec(dt, scanExpr, neutral === undefined ? undefined : String(neutral), false, opts.preamble);
  return scanCall(spec, dt, 'InclusiveScanKernel') as ScanKernel;
} as unknown as new (dtype: DTypeLike, scanExpr: string, neutral?: string | number, opts?: { preamble?: string }) => ScanKernel;

/**
 * pycuda.scan.ExclusiveScanKernel: out[i] = neutral ⊕ in[0] ⊕ … ⊕ in[i-1].
 * @example
 * const k = new ExclusiveScanKernel('float32', 'a + b', 0);
 * const y = k(x, gpuarray.emptyLike(x));
 */
export const ExclusiveScanKernel = function (this: unknown, dtype: DTypeLike, scanExpr: string, neutral: string | number,
  opts: { preamble?: string } = {}): ScanKernel {
  if (neutral === undefined) throw typeError('ERR_MISSING_ARGS', 'ExclusiveScanKernel needs a neutral element');
  const dt = toDType(dtype);
  const spec = builderSpec(dt, scanExpr, String(neutral), true, opts.preamble);
  return scanCall(spec, dt, 'ExclusiveScanKernel') as ScanKernel;
} as unknown as new (dtype: DTypeLike, scanExpr: string, neutral: string | number, opts?: { preamble?: string }) => ScanKernel;

/** GenericScanKernel options (PyOpenCL's names, camelCase). */
export interface GenericScanOptions {
  /** Scan value type. */
  dtype: DTypeLike;
  /** C declarator list of the kernel's arguments ("const float *x, int *out, int n"). */
  arguments: string;
  /** Expression (in `i` and the arguments) giving element i's input value. */
  inputExpr: string;
  /** Associative expression in `a` and `b`. */
  scanExpr: string;
  /** Neutral element (prev_item of the first element and at segment starts). */
  neutral: string | number;
  /** Statement run for each i with `item` (inclusive) and `prev_item` (exclusive). */
  outputStatement: string;
  /** Bool expression in `i`: element i starts a new segment. */
  isSegmentStartExpr?: string;
  preamble?: string;
}

/** A callable generic scan: `k(...args, { size?, stream? })`. */
export type GenericScanCallable = (...args: unknown[]) => void;

/**
 * PyOpenCL's GenericScanKernel: a scan with an input expression, an output statement and
 * optional segments.
 * @example
 * const compact = new GenericScanKernel({ dtype: 'int32', arguments: 'const float *x, float *y',
 *   inputExpr: 'x[i] > 0 ? 1 : 0', scanExpr: 'a + b', neutral: 0,
 *   outputStatement: 'if (prev_item != item) y[prev_item] = x[i];' });
 * compact(x, y);
 */
export const GenericScanKernel = function (this: unknown, o: GenericScanOptions): GenericScanCallable {
  if (typeof o !== 'object' || o === null) throw typeError('ERR_INVALID_ARG_TYPE', 'GenericScanKernel takes an options object');
  for (const k of ['arguments', 'inputExpr', 'scanExpr', 'outputStatement'] as const) {
    if (typeof o[k] !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `GenericScanKernel: ${k} must be a string`);
  }
  if (o.neutral === undefined) throw typeError('ERR_MISSING_ARGS', 'GenericScanKernel: neutral is required');
  const dt = toDType(o.dtype);
  const user: UserArgs = parseArguments(o.arguments, 'GenericScanKernel', ['i', 'n', 'item', 'prev_item']);
  const c = accType(dt);
  const spec: ScanSpec = {
    name: `nc_gscan${builderCount++}`, acc: c, accBytes: accBytes(dt), scan: o.scanExpr, neutral: `(${c})(${o.neutral})`,
    params: user.decls, input: o.inputExpr, output: o.outputStatement, segment: o.isSegmentStartExpr, preamble: o.preamble,
  };
  return (...args: unknown[]) => {
    let opts: { size?: number; stream?: Stream | null } = {};
    if (args.length === user.params.length + 1 && isOptions(args[args.length - 1])) opts = args.pop() as typeof opts;
    const { values, arrays } = user.pack(args, 'GenericScanKernel');
    const n = opts.size ?? (arrays[0]?.size);
    if (n === undefined || !Number.isSafeInteger(n) || n < 0) {
      throw typeError('ERR_INVALID_ARG_VALUE', 'GenericScanKernel: pass { size } when no array argument gives it');
    }
    runScan(spec, n, values, opts.stream, arrays);
  };
} as unknown as new (o: GenericScanOptions) => GenericScanCallable;
