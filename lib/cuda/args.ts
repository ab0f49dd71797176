/**
 * The one kernel-argument packer and launch door. Every launch in nodecuda (user kernels of
 * cuda/launch.ts and kernels/*, the elementwise/reduce/scan engines, random, joins) packs its
 * parameters C-ABI style into an ArgPacker and launches with `ArgPacker.launch`, one N-API call
 * (types/addon.d.ts `launch`). The hot path allocates nothing: a packer is reused across calls
 * (reset, then write), grows only when a parameter list outgrows it, and launch takes the grid and
 * block as plain numbers into the packer's own configuration array (no arrays, closures, rest or
 * spread per call). A caller that packs while something else may launch (a user callback between
 * two writes) owns its packer; the engines share one module-level packer each.
 */
import { Complex, DType, writeScalar } from '../base/dtype';
import { native } from './native';

/** A kernel parameter value: a device pointer or a scalar of a dtype. */
export type ParamValue = { ptr: bigint } | { dtype: DType; value: number | bigint | Complex };

/** Packs kernel parameters C-ABI style (little-endian, each aligned to its size) and launches. */
export class ArgPacker {
  /** The parameter bytes; the first `off` of them are the packed parameters. */
  bytes: Uint8Array;
  /** A view of `bytes`. */
  view: DataView;
  /** Bytes packed so far. */
  off = 0;
  // gridX, gridY, gridZ, blockX, blockY, blockZ, shared bytes (types/addon.d.ts `launch`).
  private readonly cfg = new Uint32Array(7);

  constructor(capacity = 256) {
    this.bytes = new Uint8Array(capacity);
    this.view = new DataView(this.bytes.buffer);
  }

  /** Starts a new parameter list. */
  reset(): this {
    this.off = 0;
    return this;
  }

  /** Makes room for `n` more bytes (plus alignment), keeping what is packed. */
  room(n: number): void {
    if (this.off + n + 16 > this.bytes.length) this.grow(this.off + n + 16);
  }

  private grow(end: number): void {
    const b = new Uint8Array(end * 2);
    b.set(this.bytes);
    this.bytes = b;
    this.view = new DataView(b.buffer);
  }

  /**
   * Aligns to `align` and reserves `size` bytes; returns their offset. Call it before reading
   * `view`: growing replaces the buffer, so `this.view.setX(this.at(..))` would write the old one.
   */
  at(align: number, size: number): number {
    const o = (this.off + align - 1) & -align;
    const end = o + size;
    if (end > this.bytes.length) this.grow(end);
    this.off = end;
    return o;
  }

  /** A device pointer (8 bytes). */
  ptr(p: bigint): this {
    const o = this.at(8, 8);
    this.view.setBigUint64(o, p, true);
    return this;
  }

  /** An unsigned char / bool (1 byte). */
  u8(v: number): this {
    const o = this.at(1, 1);
    this.view.setUint8(o, v);
    return this;
  }

  /** An int (4 bytes). */
  i32(v: number): this {
    const o = this.at(4, 4);
    this.view.setInt32(o, v, true);
    return this;
  }

  /** An unsigned int (4 bytes). */
  u32(v: number): this {
    const o = this.at(4, 4);
    this.view.setUint32(o, v, true);
    return this;
  }

  /** A long long (8 bytes) from a safe integer. */
  i64(v: number): this {
    const o = this.at(8, 8);
    this.view.setBigInt64(o, BigInt(v), true);
    return this;
  }

  /** An unsigned long long (8 bytes). */
  u64(v: bigint): this {
    const o = this.at(8, 8);
    this.view.setBigUint64(o, v, true);
    return this;
  }

  /** An unsigned long long (8 bytes) from a non-negative safe integer, written as two halves (no BigInt). */
  u64n(v: number): this {
    const o = this.at(8, 8);
    this.view.setUint32(o, v % 2 ** 32, true);
    this.view.setUint32(o + 4, Math.floor(v / 2 ** 32), true);
    return this;
  }

  /** A float (4 bytes). */
  f32(v: number): this {
    const o = this.at(4, 4);
    this.view.setFloat32(o, v, true);
    return this;
  }

  /** A double (8 bytes). */
  f64(v: number): this {
    const o = this.at(8, 8);
    this.view.setFloat64(o, v, true);
    return this;
  }

  /** An index: int (4 bytes) or long long (8 bytes, `wide`). */
  idx(v: number, wide: boolean): this {
    if (wide) { const o = this.at(8, 8); this.view.setBigInt64(o, BigInt(v), true); }
    else { const o = this.at(4, 4); this.view.setInt32(o, v, true); }
    return this;
  }

  /** An unsigned index: unsigned int (4 bytes) or unsigned long long (8 bytes, `wide`). */
  uidx(v: number, wide: boolean): this {
    if (wide) { const o = this.at(8, 8); this.view.setBigUint64(o, BigInt(v), true); }
    else { const o = this.at(4, 4); this.view.setUint32(o, v, true); }
    return this;
  }

  /**
   * A scalar of dtype `dt` (already converted: writeScalar). `align` defaults to the table's
   * alignment (a user kernel's complex is an aligned float2/double2); the engines' nc_c64_t and
   * nc_c128_t structs align to their part type (dt.bytes / 2).
   */
  scalar(dt: DType, v: number | bigint | Complex, align = dt.align): this {
    const o = this.at(align, dt.bytes); // first: at() may grow the buffer and replace the view
    writeScalar(this.view, o, dt, v);
    return this;
  }

  /** An engine parameter value (complex parts aligned as nc_c64_t/nc_c128_t). */
  value(p: ParamValue): this {
    if ('ptr' in p) return this.ptr(p.ptr);
    const t = p.dtype;
    return this.scalar(t, p.value, t.kind === 'c' ? t.bytes / 2 : t.align);
  }

  /**
   * Launches `fn` with the packed parameters on a `gx`×`gy`×`gz` grid of `bx`×`by`×`bz` blocks.
   * `queue`: the configuration is known to be valid (nodecuda's own kernels, or one the driver
   * accepted before), so a launcher thread may submit it (src/launch_queue.cc).
   */
  launch(fn: NativeAddon.FunctionHandle, stream: NativeAddon.StreamHandle | null, gx: number, gy: number, gz: number,
    bx: number, by: number, bz: number, shared: number, queue: boolean): void {
    const c = this.cfg;
    c[0] = gx; c[1] = gy; c[2] = gz; c[3] = bx; c[4] = by; c[5] = bz; c[6] = shared;
    native.launch(fn, stream, c, this.bytes, this.off, queue);
  }
}
