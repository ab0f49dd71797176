/**
 * GPUArray: an n-dimensional view (shape, byte strides, offset, dtype) of a DeviceAllocation.
 * Views share their base's allocation and keep it alive; only the owner frees it.
 */
import { inspect } from 'util';
import { Complex, DTypeLike, DType, dtype as toDType } from '../base/dtype';
import { checkedOptions, describe, rangeError, typeError } from '../base/errors';
import { ABORT_KEYS, type AbortOptions, abortable, throwIfAborted } from '../base/abort';
import { Stream, currentContext, streamHandle } from '../cuda/driver';
import { DEVICE_VIEW, DeviceAllocation, hostRange, useOn } from '../cuda/memory';
import * as cu from '../cuda/door';
import { Element, HostArray, NestedArray, format, getElement, hostArray, nest, publicHost } from '../base/host';
import { hostIn, hostOut } from './host_input';
import {
  broadcastStrides, checkAligned, contiguousStrides, expandDims as expandShape, isCContiguous,
  isFContiguous, normalizeShape, reshapeStrides, resolveReshape, sizeOf, squeezeAxes, transposeAxes,
} from '../base/shape';
import { IndexItem, applyIndex } from '../base/indexing';
import { impl } from './methods';
import type { MatmulOptions } from '../linalg/matmul';
import type { OpOptions, Operand } from './operators';
import type { ArgOptions, DotOptions, ReduceOptions, VarOptions } from './reductions';
import type { ScanOptions } from './scan';
import type { ArgsortOptions, SortOptions } from './sorting';
import type { PartitionOptions, SearchsortedOptions, TopkOptions, TopkResult } from './selection';
import type { NonzeroOptions } from './nonzero';
import type { DiagonalOptions, TraceOptions } from './matrices';
import type { RepeatOptions } from './shapes';
import type { ClipBound } from './clip';

const CREATE = Symbol('nodecuda.create');

/** @internal tidy() scopes (array/tidy.ts): arrays created inside are disposed when the scope ends unless returned. */
export const scopes: GPUArray[][] = [];

// Frozen C-contiguous strides by frozen shape (another array's) and itemsize, shared by arrays.
const cStridesOf = new WeakMap<readonly number[], Map<number, readonly number[]>>();

function cStrides(shape: readonly number[], itemsize: number): readonly number[] {
  if (!Object.isFrozen(shape)) return Object.freeze(contiguousStrides(shape, itemsize));
  let bySize = cStridesOf.get(shape);
  if (!bySize) cStridesOf.set(shape, (bySize = new Map()));
  let s = bySize.get(itemsize);
  if (!s) bySize.set(itemsize, (s = Object.freeze(contiguousStrides(shape, itemsize))));
  return s;
}

/** The context an array belongs to (id), so arrays of two devices are not mixed. */
function currentContextId(): number {
  return currentContext().id;
}

// Option names of the methods that take options here (the others' are checked where they are implemented).
const STREAM_KEY = ['stream'];
const TRANSFER_KEYS = ['stream', ...ABORT_KEYS];

/** Options of getAsync() and setAsync(). */
export interface TransferOptions extends AbortOptions {
  /** Stream the copy is queued on (default: the legacy stream). */
  stream?: Stream | null;
}

/**
 * An array on the GPU (pycuda.gpuarray.GPUArray), NumPy-like.
 * @example
 * const a = gpuarray.toGpu(new Float32Array([1, 2, 3]));
 * console.log(a.mul(2).get()); // Float32Array [2, 4, 6]
 */
export class GPUArray {
  /** Dimensions, outermost first (`[]` for a 0-d array). */
  readonly shape: readonly number[];
  /** Byte strides. */
  readonly strides: readonly number[];
  /** Element type. */
  readonly dtype: DType;
  /** Byte offset of element 0 within the allocation. */
  readonly offset: number;
  /** The array whose memory this view shares (null for an owner). */
  readonly base: GPUArray | null;
  /** @internal */
  readonly alloc: DeviceAllocation;
  /** @internal Context id the memory lives in. */
  readonly context: number;
  /** @internal Device address of element 0 (valid until disposed). */
  readonly address: bigint;
  /** @internal The address modulo 16, for alignment checks without BigInt arithmetic. */
  readonly align16: number;
  #disposed = false;
  /** Views that own this owner's memory (tidy() returned them without it); freed with the last. */
  #heldBy: Set<GPUArray> | null = null;
  /** The owner whose memory this view owns (see #heldBy). */
  #holds: GPUArray | null = null;

  /** @internal Use gpuarray.empty/toGpu/... */
  constructor(token: symbol, alloc: DeviceAllocation, shape: readonly number[], strides: readonly number[],
    dt: DType, offset: number, base: GPUArray | null, context: number) {
    if (token !== CREATE) throw typeError('ERR_ILLEGAL_CONSTRUCTOR', 'Use gpuarray.empty(), gpuarray.toGpu() and friends');
    this.alloc = alloc;
    // Frozen arrays are shared as they are (another array's shape, cached contiguous strides).
    this.shape = Object.isFrozen(shape) ? shape : Object.freeze(shape.slice());
    this.strides = Object.isFrozen(strides) ? strides : Object.freeze(strides.slice());
    this.dtype = dt;
    this.offset = offset;
    this.base = base;
    this.context = context;
    this.address = offset === 0 ? alloc.ptr : alloc.ptr + BigInt(offset);
    this.align16 = (alloc.align16 + offset) & 15;
    if (!base && scopes.length) scopes[scopes.length - 1].push(this);
  }

  /** @internal A new C-contiguous array (uninitialized). */
  static allocate(shape: readonly number[], dt: DType, stream?: Stream | null): GPUArray {
    const n = sizeOf(shape);
    const alloc = new DeviceAllocation(n * dt.bytes, stream ?? null);
    return new GPUArray(CREATE, alloc, shape, cStrides(shape, dt.bytes), dt, 0, null, currentContextId());
  }

  /** @internal A view of this array's memory. */
  view_(shape: readonly number[], strides: readonly number[], offset: number, dt: DType = this.dtype): GPUArray {
    this.check();
    if (dt.align > 1) checkAligned(this.alloc.align16 + offset, shape, strides, dt);
    return new GPUArray(CREATE, this.alloc, shape, strides, dt, offset, this.base ?? this, this.context);
  }

  /** Number of dimensions. */
  get ndim(): number { return this.shape.length; }
  /** Number of elements. */
  get size(): number { return sizeOf(this.shape); }
  /** Bytes per element. */
  get itemsize(): number { return this.dtype.bytes; }
  /** Bytes of the elements (size × itemsize). */
  get nbytes(): number { return this.size * this.dtype.bytes; }
  /** Device address of element 0. */
  get ptr(): bigint { this.check(); return this.address; }
  /** Memory layout, computed from shape and strides. */
  get flags(): {
    /** Row-major (C) contiguous. */
    cContiguous: boolean;
    /** Column-major (Fortran) contiguous. */
    fContiguous: boolean;
  } {
    return {
      cContiguous: isCContiguous(this.shape, this.strides, this.dtype.bytes),
      fContiguous: isFContiguous(this.shape, this.strides, this.dtype.bytes),
    };
  }
  /** True after dispose() of this array or of the array that owns its memory. */
  get disposed(): boolean { return this.#disposed || this.alloc.freed || (this.base?.disposed ?? false); }

  /** @internal Throws a TypeError when used after dispose(). */
  check(): this {
    if (this.disposed) throw typeError('ERR_USE_AFTER_DISPOSE', 'This GPUArray was disposed');
    return this;
  }

  /** Device memory for launches and copies (the key is not exported from the package). */
  [DEVICE_VIEW](): {
    /** Device address of element 0 (`ptr`). */
    ptr: bigint;
    /** Bytes from `ptr` to the end of the allocation. */
    bytes: number;
  } {
    return { ptr: this.ptr, bytes: this.alloc.size - this.offset };
  }

  /**
   * Frees the memory now (owner) or detaches this view; idempotent. A view returned by tidy()
   * without its owner owns the memory: disposing the last such view frees it.
   */
  dispose(): void {
    if (this.#disposed) return;
    this.#disposed = true;
    if (!this.base) {
      this.alloc.free();
      return;
    }
    const owner = this.#holds;
    if (owner) {
      this.#holds = null;
      owner.#heldBy?.delete(this);
      if (owner.#heldBy?.size === 0) owner.dispose();
    }
  }

  /**
   * @internal tidy(): hands this owner's memory to `views` (returned without it), so disposing
   * the last of them frees it; an empty list gives it back to whoever holds this array.
   */
  handOver_(views: readonly GPUArray[]): void {
    for (const v of this.#heldBy ?? []) v.#holds = null;
    this.#heldBy = views.length ? new Set(views) : null;
    for (const v of views) v.#holds = this;
  }
  /** dispose(), for `using`. */
  [Symbol.dispose](): void { this.dispose(); }

  // ---- host transfers ---------------------------------------------------------------------

  /** @internal A C-contiguous array with this content: itself, or a copy. */
  contiguous(): GPUArray {
    return this.flags.cContiguous ? this : impl.copyOf(this);
  }

  /**
   * Copies to the host: a TypedArray of the dtype's host type (Float16Array for float16 where
   * the runtime has it, else Uint16Array bits; bfloat16: Uint16Array bits; complex interleaved
   * re/im), or into `out`.
   * @example
   * const host = a.get();
   * const f = a.get(new Float32Array(a.size)); // Float32Array: `out` itself comes back
   */
  get<T extends ArrayBufferView>(out: T): T;
  get(out?: ArrayBufferView): ArrayBufferView;
  get(out?: ArrayBufferView): ArrayBufferView {
    this.check();
    const h = hostOut(this.dtype, this.size, out);
    const src = this.contiguous();
    try {
      cu.memcpyDtoh(h.buffer, h.byteOffset, h.byteLength, src.ptr, hostRange(h, 'out').pinned);
    } finally {
      if (src !== this) src.dispose();
    }
    return out ?? publicHost(this.dtype, h);
  }

  /**
   * Like get(), resolved when the data has arrived; never blocks the event loop. With `signal`,
   * aborting rejects the Promise at once with an AbortError; the copy still runs to its end and
   * still writes `out`: a page-locked one by DMA, a pageable one on the event loop once the copy
   * is done (so later than the stream's synchronize()).
   * @example
   * const host = await a.getAsync();
   * const f = await a.getAsync(new Float32Array(a.size), { signal: AbortSignal.timeout(1000) });
   */
  getAsync<T extends ArrayBufferView>(out: T, opts?: TransferOptions): Promise<T>;
  getAsync(out?: ArrayBufferView, opts?: TransferOptions): Promise<ArrayBufferView>;
  async getAsync(out?: ArrayBufferView, opts: TransferOptions = {}): Promise<ArrayBufferView> {
    opts = checkedOptions(opts, 'GPUArray.getAsync()', TRANSFER_KEYS);
    this.check();
    const h = hostOut(this.dtype, this.size, out);
    const signal = throwIfAborted(opts.signal); // before contiguous(): an aborted call queues nothing
    const src = this.contiguous();
    try {
      const stream = streamHandle(opts.stream);
      useOn(src, stream);
      // An abort settles this before the copy ends: disposing `src` below is still safe, as its
      // free is stream-ordered after the copy (useOn), and the native copy holds `h` until done.
      await abortable(() => cu.memcpyDtohAsync(h.buffer, h.byteOffset, h.byteLength, src.ptr,
        hostRange(h, 'out').pinned, stream), signal);
    } finally {
      if (src !== this) src.dispose();
    }
    return out ?? publicHost(this.dtype, h);
  }

  /**
   * Copies data in: host data (same number of elements, this dtype's host type or nested arrays),
   * or another GPUArray (broadcast and converted).
   * @example
   * a.set(new Float32Array([4, 5, 6]));
   */
  set(host: ArrayBufferView | ArrayBuffer | NestedArray | GPUArray): this {
    this.check();
    if (host instanceof GPUArray) {
      impl.assign(this, host.check()); // device to device, broadcasting and converting like NumPy's a[...] = b
      return this;
    }
    const h = hostIn(this.dtype, this.size, host);
    const pinned = hostRange(h, 'host').pinned;
    if (this.flags.cContiguous) {
      useOn(this, null); // a small pageable copy may still be in flight when this returns
      cu.memcpyHtod(this.ptr, h.buffer, h.byteOffset, h.byteLength, pinned);
    } else {
      const tmp = fromHost(h, this.shape, this.dtype);
      try { impl.assign(this, tmp); } finally { tmp.dispose(); }
    }
    return this;
  }

  /**
   * Promise form of set() for host data. With `signal`, aborting rejects the Promise at once
   * with an AbortError; the copy still runs to its end and still writes this array. A
   * non-contiguous array is set synchronously (as set()), so only an already aborted signal
   * stops it.
   * @example
   * await a.setAsync(data);
   * await a.setAsync(data, { stream: s, signal: AbortSignal.timeout(1000) });
   */
  async setAsync(host: ArrayBufferView | ArrayBuffer | NestedArray, opts: TransferOptions = {}): Promise<this> {
    opts = checkedOptions(opts, 'GPUArray.setAsync()', TRANSFER_KEYS);
    this.check();
    const h = hostIn(this.dtype, this.size, host);
    const signal = throwIfAborted(opts.signal);
    if (!this.flags.cContiguous) return this.set(h);
    const stream = streamHandle(opts.stream);
    useOn(this, stream);
    await abortable(() => cu.memcpyHtodAsync(this.ptr, h.buffer, h.byteOffset, h.byteLength,
      hostRange(h, 'host').pinned, stream), signal);
    return this;
  }

  /**
   * The single element of a size-1 array: number, bigint (64-bit ints), boolean or {re, im}.
   * @example
   * gpuarray.toGpu([3]).item(); // 3
   */
  item(): Element {
    this.check();
    if (this.size !== 1) throw rangeError('ERR_OUT_OF_RANGE', `item() needs an array of size 1; this one has ${this.size}`);
    const h = hostArray(this.dtype, 1);
    cu.memcpyDtoh(h.buffer, h.byteOffset, h.byteLength, this.ptr, false);
    return getElement(h, this.dtype, 0);
  }

  /** Nested JS arrays (a scalar for 0-d). @example a.toArray(); // [[1, 2], [3, 4]] */
  toArray(): NestedArray {
    const h = this.get();
    return nest(h as HostArray, this.dtype, this.shape);
  }

  // ---- views --------------------------------------------------------------------------------

  /**
   * A view with a new shape (one dimension may be -1); a copy when no view is possible.
   * @example
   * a.reshape(2, 3); a.reshape([2, -1]);
   */
  reshape(...shape: Array<number | readonly number[]>): GPUArray {
    const want = resolveReshape(this.size, shape.length === 1 && Array.isArray(shape[0]) ? shape[0] : shape as number[]);
    const strides = reshapeStrides(this.shape, this.strides, want, this.dtype.bytes);
    if (strides) return this.view_(want, strides, this.offset);
    // No view possible: a new owner with the new shape, filled through a view in the old one.
    return filled(GPUArray.allocate(want, this.dtype),
      (out) => impl.assign(out.view_(this.shape, contiguousStrides(this.shape, this.dtype.bytes), 0), this));
  }

  /** A 1-d view (or copy). @example a.ravel() */
  ravel(): GPUArray { return this.reshape(-1); }

  /**
   * The same bytes as another dtype (last dimension rescaled, like NumPy's view).
   * @example
   * gpuarray.zeros(4, 'float32').view('uint32');
   */
  view(dt: DTypeLike): GPUArray {
    const d = toDType(dt);
    if (d.bytes === this.dtype.bytes) return this.view_(this.shape, this.strides, this.offset, d);
    const last = this.ndim - 1;
    if (last < 0 || this.strides[last] !== this.dtype.bytes || (this.shape[last] * this.dtype.bytes) % d.bytes !== 0) {
      throw rangeError('ERR_INVALID_VIEW', `Cannot view a ${this.dtype.name} array of shape (${this.shape}) as ${d.name}: ` +
        'the last axis must be contiguous and its byte size divisible by the new itemsize');
    }
    const shape = [...this.shape];
    shape[last] = (shape[last] * this.dtype.bytes) / d.bytes;
    const strides = [...this.strides];
    strides[last] = d.bytes;
    return this.view_(shape, strides, this.offset, d);
  }

  /** Permuted axes (reversed by default). @example a.transpose([1, 0, 2]) */
  transpose(axes?: readonly number[]): GPUArray {
    const p = transposeAxes(this.ndim, axes);
    return this.view_(p.map((k) => this.shape[k]), p.map((k) => this.strides[k]), this.offset);
  }
  /** The transpose. @example a.T */
  get T(): GPUArray { return this.transpose(); }

  /** Without the given (or all) length-1 axes. @example a.squeeze() */
  squeeze(axis?: number | readonly number[] | null): GPUArray {
    const drop = new Set(squeezeAxes(this.shape, axis));
    const keep = this.shape.map((_, k) => k).filter((k) => !drop.has(k));
    return this.view_(keep.map((k) => this.shape[k]), keep.map((k) => this.strides[k]), this.offset);
  }

  /** A new length-1 axis at `axis`. @example a.expandDims(0) */
  expandDims(axis: number): GPUArray {
    const { shape, strides } = expandShape(this.shape, this.strides, axis);
    return this.view_(shape, strides, this.offset);
  }

  /** A read-only-in-spirit broadcast view (stride 0 on new axes). @example b.broadcastTo([4, 3]) */
  broadcastTo(shape: number | readonly number[]): GPUArray {
    const target = normalizeShape(shape);
    return this.view_(target, broadcastStrides(this.shape, this.strides, target), this.offset);
  }

  /**
   * NumPy basic indexing as a view: integers (negative from the end), slices (`'1:5:2'`,
   * `'::-1'`, or `slice(1, 5, 2)`), `null`/`newaxis` for a new axis, `'...'`/`ellipsis`.
   * @example
   * a.index(0, '1:'); a.index('...', null); a.index(slice(null, null, -1));
   */
  index(...items: IndexItem[]): GPUArray {
    const r = applyIndex(this.shape, this.strides, items);
    return this.view_(r.shape, r.strides, this.offset + r.offset);
  }

  // ---- operators, copies, reductions and scans (implemented in operators.ts, reductions.ts,
  // scan.ts; registered in methods.ts, which says why) -------------------------------------------

  /** Elementwise `this + b` (NumPy promotion and broadcasting). */
  add(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('add', [this, b], opts); }
  /** Elementwise `this - b`. */
  sub(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('sub', [this, b], opts); }
  /** Elementwise `this * b`. */
  mul(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('mul', [this, b], opts); }
  /** Elementwise true division `this / b` (integers give float64). */
  div(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('div', [this, b], opts); }
  /** Elementwise `this ** b`. */
  pow(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('pow', [this, b], opts); }
  /** Elementwise remainder with the sign of `b` (Python/NumPy `%`). */
  mod(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('mod', [this, b], opts); }
  /** Elementwise floor division (`//`). */
  floorDiv(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('floorDiv', [this, b], opts); }
  /** Elementwise `this == b` (bool). */
  eq(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('eq', [this, b], opts); }
  /** Elementwise `this != b` (bool). */
  ne(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('ne', [this, b], opts); }
  /** Elementwise `this < b` (bool). */
  lt(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('lt', [this, b], opts); }
  /** Elementwise `this <= b` (bool). */
  le(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('le', [this, b], opts); }
  /** Elementwise `this > b` (bool). */
  gt(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('gt', [this, b], opts); }
  /** Elementwise `this >= b` (bool). */
  ge(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('ge', [this, b], opts); }
  /** Elementwise bitwise and (logical for bool). */
  and(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('and', [this, b], opts); }
  /** Elementwise bitwise or (logical for bool). */
  or(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('or', [this, b], opts); }
  /** Elementwise bitwise xor (logical for bool). */
  xor(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('xor', [this, b], opts); }
  /** Elementwise `this << b`. */
  shl(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('shl', [this, b], opts); }
  /** Elementwise `this >> b`. */
  shr(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('shr', [this, b], opts); }
  /** Elementwise maximum (NaN propagates). */
  maximum(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('maximum', [this, b], opts); }
  /** Elementwise minimum (NaN propagates). */
  minimum(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('minimum', [this, b], opts); }
  /** Elementwise logical and (bool). */
  logicalAnd(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('logicalAnd', [this, b], opts); }
  /** Elementwise logical or (bool). */
  logicalOr(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('logicalOr', [this, b], opts); }
  /** Elementwise logical xor (bool). */
  logicalXor(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('logicalXor', [this, b], opts); }
  /** Elementwise negation. */
  neg(opts?: OpOptions): GPUArray { return impl.apply('neg', [this], opts); }
  /** Elementwise absolute value (complex: the magnitude). */
  abs(opts?: OpOptions): GPUArray { return impl.apply('abs', [this], opts); }
  /** Elementwise bitwise not (logical for bool). */
  not(opts?: OpOptions): GPUArray { return impl.apply('not', [this], opts); }
  /** Elementwise logical not (bool). */
  logicalNot(opts?: OpOptions): GPUArray { return impl.apply('logicalNot', [this], opts); }
  /** Reflected sub: elementwise `b - this`. */
  rsub(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('sub', [b, this], opts); }
  /** Reflected div: elementwise `b / this`. */
  rdiv(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('div', [b, this], opts); }
  /** Reflected pow: elementwise `b ** this`. */
  rpow(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('pow', [b, this], opts); }
  /** Reflected mod: elementwise `b % this`. */
  rmod(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('mod', [b, this], opts); }
  /** Reflected floorDiv: elementwise `b // this`. */
  rfloorDiv(b: Operand, opts?: OpOptions): GPUArray { return impl.apply('floorDiv', [b, this], opts); }
  /** Fills every element with `value`; returns this. */
  fill(value: Operand, opts: { stream?: Stream | null } = {}): this {
    impl.fill(this, value, checkedOptions(opts, 'GPUArray.fill()', STREAM_KEY).stream);
    return this;
  }
  /** A converted copy. */
  astype(dt: DTypeLike, opts: { stream?: Stream | null } = {}): GPUArray {
    return impl.copyOf(this.check(), checkedOptions(opts, 'GPUArray.astype()', STREAM_KEY).stream, toDType(dt));
  }
  /** A C-contiguous copy. */
  copy(opts: { stream?: Stream | null } = {}): GPUArray {
    return impl.copyOf(this.check(), checkedOptions(opts, 'GPUArray.copy()', STREAM_KEY).stream);
  }
  /** Sum over `axis` (all axes by default). */
  sum(opts?: ReduceOptions): GPUArray { return impl.sum(this, opts); }
  /** Product over `axis`. */
  prod(opts?: ReduceOptions): GPUArray { return impl.prod(this, opts); }
  /** Minimum over `axis` (NaN propagates). */
  min(opts?: ReduceOptions): GPUArray { return impl.min(this, opts); }
  /** Maximum over `axis` (NaN propagates). */
  max(opts?: ReduceOptions): GPUArray { return impl.max(this, opts); }
  /** Arithmetic mean over `axis`. */
  mean(opts?: ReduceOptions): GPUArray { return impl.mean(this, opts); }
  /** Variance over `axis` (`ddof` as NumPy). */
  var(opts?: VarOptions): GPUArray { return impl.var(this, opts); }
  /** Standard deviation over `axis` (`ddof` as NumPy). */
  std(opts?: VarOptions): GPUArray { return impl.std(this, opts); }
  /** Whether any element over `axis` is nonzero. */
  any(opts?: ReduceOptions): GPUArray { return impl.any(this, opts); }
  /** Whether every element over `axis` is nonzero. */
  all(opts?: ReduceOptions): GPUArray { return impl.all(this, opts); }
  /** Index of the minimum (first on ties) over `axis` or the flattened array. */
  argmin(opts?: ArgOptions): GPUArray { return impl.argmin(this, opts); }
  /** Index of the maximum (first on ties) over `axis` or the flattened array. */
  argmax(opts?: ArgOptions): GPUArray { return impl.argmax(this, opts); }
  /** Dot product of the flattened arrays. */
  dot(b: GPUArray, opts?: DotOptions): GPUArray { return impl.dot(this, b, opts); }
  /** Cumulative sum (flattened, or along `axis`). */
  cumsum(opts?: ScanOptions): GPUArray { return impl.cumsum(this, opts); }
  /** Cumulative product (flattened, or along `axis`). */
  cumprod(opts?: ScanOptions): GPUArray { return impl.cumprod(this, opts); }
  /**
   * Sorts this array in place along `axis` (default -1; NumPy's ndarray.sort, stable; docs/sorting.md) and returns it.
   * @example
   * a.sort(); // a is now sorted along its last axis
   */
  sort(opts?: Omit<SortOptions, 'out'>): this { impl.sort(this, opts); return this; }
  /**
   * The int64 indices that sort this array along `axis` (gpuarray.argsort).
   * @example
   * const order = a.argsort();
   */
  argsort(opts?: ArgsortOptions): GPUArray { return impl.argsort(this, opts); }
  /**
   * Insertion points of `v` in this sorted 1-D array (gpuarray.searchsorted).
   * @example
   * const where = sortedKeys.searchsorted(queries, { side: 'right' });
   */
  searchsorted(v: GPUArray | number | bigint | boolean | Complex, opts?: SearchsortedOptions): GPUArray {
    return impl.searchsorted(this, v, opts);
  }
  /**
   * The `k` largest (or smallest) elements along `axis` and their int64 positions (gpuarray.topk).
   * @example
   * const { values, indices } = logits.topk(5);
   */
  topk(k: number, opts?: TopkOptions): TopkResult { return impl.topk(this, k, opts); }
  /** The int64 indices of the nonzero elements, one array per dimension (gpuarray.nonzero; reads the count back). */
  nonzero(opts?: NonzeroOptions): GPUArray[] { return impl.nonzero(this, opts); }
  /**
   * Partitions this array in place along `axis` around each `kth` position (NumPy's
   * ndarray.partition; gpuarray.partition) and returns it.
   */
  partition(kth: number | readonly number[], opts?: Omit<PartitionOptions, 'axis'> & { axis?: number }): this {
    impl.partition(this, kth, opts);
    return this;
  }
  /** The int64 indices that partition this array along `axis` (gpuarray.argpartition). */
  argpartition(kth: number | readonly number[], opts?: PartitionOptions): GPUArray { return impl.argpartition(this, kth, opts); }
  /**
   * Matrix product with `b` (gpuarray.matmul: NumPy's `a @ b`, on cuBLAS; docs/linalg.md).
   * @example
   * const y = x.matmul(w);
   */
  matmul(b: GPUArray, opts?: MatmulOptions): GPUArray { return impl.matmul(this, b, opts); }
  /** The diagonal at `offset` over `axis1`, `axis2` as a view, on the last axis (gpuarray.diagonal). @example m.diagonal({ offset: 1 }) */
  diagonal(opts?: DiagonalOptions): GPUArray { return impl.diagonal(this, opts); }
  /** The sum along the diagonal (gpuarray.trace; integers in 64 bits, as sum()). @example m.trace().item() */
  trace(opts?: TraceOptions): GPUArray { return impl.trace(this, opts); }
  /** A view with axes `axis1` and `axis2` interchanged (gpuarray.swapaxes). @example m.swapaxes(0, 1) */
  swapaxes(axis1: number, axis2: number): GPUArray { return impl.swapaxes(this, axis1, axis2); }
  /** Each element repeated (gpuarray.repeat; flattened without `axis`). @example v.repeat(2) */
  repeat(repeats: number | readonly number[], opts?: RepeatOptions): GPUArray { return impl.repeat(this, repeats, opts); }
  /** Limited to [min, max], either may be null (gpuarray.clip, NumPy 2). @example x.clip(0, 1) */
  clip(min?: ClipBound, max?: ClipBound, opts?: OpOptions): GPUArray { return impl.clip(this, min, max, opts); }
  /** Complex: a view of the real parts (float32/float64), written through; else this array (gpuarray.real). @example z.real.fill(0) */
  get real(): GPUArray { return impl.real(this); }
  /** Complex: a view of the imaginary parts, written through; other dtypes: a new zeros array (gpuarray.imag). @example z.imag.get() */
  get imag(): GPUArray { return impl.imag(this); }
  /** The complex conjugate as a new array; a copy for real dtypes (cumath.conj). @example const zc = z.conj(); */
  conj(opts?: OpOptions): GPUArray { return impl.conj(this, opts); }
  /** The same as conj(). @example z.conjugate({ out: z }) */
  conjugate(opts?: OpOptions): GPUArray { return impl.conj(this, opts); }

  // ---- printing -----------------------------------------------------------------------------

  /** The elements as text (copies them to the host, synchronously). */
  toString(): string {
    if (this.disposed) return 'GPUArray(<disposed>)';
    const h = this.get() as HostArray;
    return format(h, this.dtype, this.shape);
  }

  /** @internal util.inspect's hook: kept out of the declarations, which must not need @types/node. */
  [inspect.custom](): string {
    if (this.disposed) return `GPUArray(<disposed>, shape=(${this.shape.join(', ')}), dtype=${this.dtype.name})`;
    const body = this.toString().replace(/\n/g, '\n         ');
    return `GPUArray(${body}, dtype=${this.dtype.name})`;
  }
}

/**
 * @internal An argument that must be a live GPUArray: TypeError `ERR_INVALID_ARG_TYPE` otherwise
 * (`ERR_USE_AFTER_DISPOSE` when disposed).
 */
export function arrayArg(v: unknown, name: string): GPUArray {
  if (!(v instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a GPUArray. Received ${describe(v)}`);
  return v.check();
}

/**
 * @internal `a` after `fill(a)`, or, when fill throws (a failed launch or copy, a value the dtype
 * cannot hold), `a` disposed and the error rethrown: a new array nobody gets is freed at once.
 */
export function filled<T extends GPUArray>(a: T, fill: (a: T) => unknown): T {
  try {
    fill(a);
    return a;
  } catch (e) {
    a.dispose();
    throw e;
  }
}

/** @internal A new array holding a C-ordered host array of `dt`. */
export function fromHost(h: HostArray, shape: readonly number[], dt: DType, stream?: Stream | null): GPUArray {
  return filled(GPUArray.allocate(shape, dt, stream),
    (a) => cu.memcpyHtod(a.ptr, h.buffer, h.byteOffset, h.byteLength, hostRange(h, 'host').pinned));
}

/**
 * @internal A C-contiguous owner GPUArray of `shape` over `alloc` (which may be larger): a
 * non-owning DeviceAllocation (a mapped GL buffer, whose owner frees it by unmapping) or an owning
 * one that dispose() then frees (unique's values in the room made for all n).
 */
export function wrapDeviceMemory(alloc: DeviceAllocation, shape: readonly number[], dt: DType): GPUArray {
  return new GPUArray(CREATE, alloc, shape, cStrides(shape, dt.bytes), dt, 0, null, currentContextId());
}
