/**
 * Layer 23: the one kernel-argument packer (lib/cuda/args.ts) — C-ABI offsets and alignment,
 * growth, and the launch door's hand-off to native.launch. No GPU: native.launch is spied on.
 */
import { ArgPacker } from '../lib/cuda/args';
import { native } from '../lib/cuda/native';
import { DTYPES } from '../lib/base/dtype';

describe('ArgPacker', () => {
  test('packs C-ABI style: each value aligned to its size, little-endian', () => {
    const p = new ArgPacker(16);
    p.reset().u8(1).i32(-2).ptr(0x1122334455667788n).f32(1.5).f64(-0.25).u32(7).i64(-3).u64(2n ** 64n - 1n);
    const v = p.view;
    expect(v.getUint8(0)).toBe(1);
    expect(v.getInt32(4, true)).toBe(-2);
    expect(v.getBigUint64(8, true)).toBe(0x1122334455667788n);
    expect(v.getFloat32(16, true)).toBe(1.5);
    expect(v.getFloat64(24, true)).toBe(-0.25);
    expect(v.getUint32(32, true)).toBe(7);
    expect(v.getBigInt64(40, true)).toBe(-3n);
    expect(v.getBigUint64(48, true)).toBe(2n ** 64n - 1n);
    expect(p.off).toBe(56);
  });

  test('grows past its capacity and keeps what it packed', () => {
    const p = new ArgPacker(8);
    for (let i = 0; i < 100; i++) p.u32(i);
    expect(p.off).toBe(400);
    expect(p.bytes.length).toBeGreaterThanOrEqual(400);
    for (let i = 0; i < 100; i++) expect(p.view.getUint32(4 * i, true)).toBe(i);
  });

  test('u64n writes a safe integer as BigInt would; idx/uidx pick 4 or 8 bytes', () => {
    const p = new ArgPacker();
    const big = 2 ** 40 + 12345;
    p.u64n(big).idx(-5, false).idx(-6, true).uidx(2 ** 32 - 1, false).uidx(2 ** 33, true);
    expect(p.view.getBigUint64(0, true)).toBe(BigInt(big));
    expect(p.view.getInt32(8, true)).toBe(-5);
    expect(p.view.getBigInt64(16, true)).toBe(-6n);
    expect(p.view.getUint32(24, true)).toBe(2 ** 32 - 1);
    expect(p.view.getBigUint64(32, true)).toBe(2n ** 33n);
  });

  test('complex scalars: table alignment for user kernels, part alignment for engine values', () => {
    const user = new ArgPacker().u8(1).scalar(DTYPES.complex64, { re: 1, im: -2 });
    expect(user.off).toBe(16); // float2: aligned to 8
    expect(user.view.getFloat32(8, true)).toBe(1);
    expect(user.view.getFloat32(12, true)).toBe(-2);
    const engine = new ArgPacker().u8(1).value({ dtype: DTYPES.complex64, value: { re: 3, im: 4 } });
    expect(engine.off).toBe(12); // nc_c64_t: aligned to its float parts
    expect(engine.view.getFloat32(4, true)).toBe(3);
    expect(engine.view.getFloat32(8, true)).toBe(4);
    const ptr = new ArgPacker().u8(1).value({ ptr: 5n });
    expect(ptr.view.getBigUint64(8, true)).toBe(5n);
  });

  test('launch hands the configuration and the packed bytes to native.launch in one call', () => {
    const spy = jest.spyOn(native, 'launch').mockImplementation(() => undefined);
    try {
      const p = new ArgPacker().reset().ptr(1n).u32(2);
      const fn = {} as NativeAddon.FunctionHandle;
      p.launch(fn, null, 3, 4, 5, 6, 7, 8, 9, true);
      expect(spy).toHaveBeenCalledTimes(1);
      const [f, stream, cfg, bytes, n, queue] = spy.mock.calls[0];
      expect(f).toBe(fn);
      expect(stream).toBeNull();
      expect(Array.from(cfg)).toEqual([3, 4, 5, 6, 7, 8, 9]);
      expect(bytes).toBe(p.bytes);
      expect(n).toBe(12);
      expect(queue).toBe(true);
      // The configuration array is the packer's own, reused by the next launch (no allocation).
      p.launch(fn, null, 1, 1, 1, 32, 1, 1, 0, false);
      expect(spy.mock.calls[1][2]).toBe(cfg);
    } finally {
      spy.mockRestore();
    }
  });
});
