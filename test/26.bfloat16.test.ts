/**
 * Layer 26: bfloat16 without a GPU — the table row, the host conversions (round to nearest even
 * from a double, checked against an exact BigInt reference, NaN/±Inf/-0/subnormals), typed
 * scalars and argument packing, C spellings, host copies (toGpu input, item/toArray decoding).
 * The device conversions are checked on the GPU by test/81 (astype) and test/87 (user kernels).
 */
import * as cuda from '../lib';
import { DTYPES, coerce, dtypeOfCName, writeScalar } from '../lib/base/dtype';
import { makeFunction, parseKernelSignatures } from '../lib/cuda/launch';
import { getElement, setElement } from '../lib/base/host';
import { hostInput } from '../lib/array/host_input';
import { bf16OfBig } from './reference';

const { floatToBf16Bits: bits, bf16BitsToFloat: value } = cuda;

/** Round to nearest even of a double to bfloat16 bits, in exact integer arithmetic (independent of lib). */
function exactBits(x: number): number {
  if (Number.isNaN(x)) return 0x7fc0;
  const dv = new DataView(new ArrayBuffer(8));
  dv.setFloat64(0, x);
  const hi = dv.getUint32(0), lo = dv.getUint32(4);
  const sign = hi >>> 31 ? 0x8000 : 0;
  const e = (hi >>> 20) & 0x7ff;
  if (e === 0x7ff) return sign | 0x7f80; // ±Inf
  // |x| = m · 2^(q) with m an integer (53 bits for normal doubles).
  let m = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  let q = e - 1075;
  if (e === 0) q = -1074;
  else m |= 1n << 52n;
  if (m === 0n) return sign;
  // bfloat16 values are k · 2^t with k < 2^8 (normal: 2^7 ≤ k; t ≥ -133 covers the subnormals).
  const msb = m.toString(2).length - 1 + q; // floor(log2 |x|)
  const t = Math.max(msb - 7, -133);
  const shift = t - q; // |x| / 2^t = m / 2^shift
  let k: bigint;
  if (shift <= 0) k = m << BigInt(-shift);
  else {
    const s = BigInt(shift);
    k = m >> s;
    const rem = m & ((1n << s) - 1n), half = 1n << (s - 1n);
    if (rem > half || (rem === half && (k & 1n) === 1n)) k += 1n;
  }
  // k · 2^t → bits: biased exponent from t; a k of 2^8 carries into the next binade.
  let kk = Number(k), tt = t;
  if (kk === 256) { kk = 128; tt += 1; }
  if (kk < 128) return sign | kk; // subnormal (t = -133) or zero
  const be = tt + 7 + 127;
  if (be >= 0xff) return sign | 0x7f80;
  return sign | (be << 7) | (kk - 128);
}

// The device conversions of templates/preamble.ts, transcribed: nc_f2bf (integer round to nearest
// even on the float32 bits) and nc_d2bf (float rounded to odd: toward zero, low bit set if inexact).
const F = new Float32Array(1), U = new Uint32Array(F.buffer);
function deviceF2bf(u: number): number {
  return (u & 0x7fffffff) >>> 0 > 0x7f800000 ? ((u >>> 16) & 0x8000) | 0x7fc0 : ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) & 0xffff;
}
function deviceD2bf(x: number): number {
  F[0] = x;
  if (Math.abs(F[0]) > Math.abs(x)) U[0] -= 1; // cvt.rz: one step toward zero (Inf becomes the largest float)
  const inexact = F[0] !== x && !Number.isNaN(x);
  return deviceF2bf((U[0] | (inexact ? 1 : 0)) >>> 0);
}

describe('bfloat16: the dtype row', () => {
  test('2 bytes, kind f, nc_bf16 storage, float compute and accumulation, Uint16Array bits, letter E', () => {
    const d = DTYPES.bfloat16;
    expect([d.name, d.bytes, d.align, d.kind, d.array, d.letter]).toEqual(['bfloat16', 2, 2, 'f', Uint16Array, 'E']);
    expect([d.ctype, d.storageC, d.computeC, d.accC, d.accBytes]).toEqual(['__nv_bfloat16', 'nc_bf16', 'float', 'float', 4]);
    expect(cuda.dtype('bfloat16')).toBe(d);
    expect(cuda.dtype(cuda.bfloat16)).toBe(d);
    expect(dtypeOfCName('__nv_bfloat16')).toBe(d);
    expect(dtypeOfCName('nv_bfloat16')).toBe(d);
    // A Uint16Array is uint16 unless a dtype says otherwise.
    expect(cuda.dtype(Uint16Array)).toBe(DTYPES.uint16);
  });

  test('kernel signatures and prepare() letters', () => {
    const sig = parseKernelSignatures('__global__ void k(__nv_bfloat16 *x, __nv_bfloat16 a, nv_bfloat16 b, const __nv_bfloat16* __restrict__ y) {}').get('k')!;
    expect(sig.map((p) => (p.kind === 'scalar' ? p.dtype.name : p.kind))).toEqual(['ptr', 'bfloat16', 'bfloat16', 'ptr']);
    const k = makeFunction({} as never, 'k', null, null);
    expect(k.prepare('PEe')).toBe(k); // E: bfloat16 (e: float16)
    expect(() => k.prepare('PZ')).toThrow(TypeError);
  });
});

describe('bfloat16: host conversion (round to nearest even from the double)', () => {
  test.each([
    [0, 0x0000], [-0, 0x8000], [1, 0x3f80], [-2, 0xc000], [0.1, 0x3dcd], [1 / 3, 0x3eab], [Infinity, 0x7f80], [-Infinity, 0xff80],
    // ties go to even; just off a tie goes to the nearer value, also where float32 would land on the tie
    [1 + 2 ** -8, 0x3f80], [1 + 3 * 2 ** -8, 0x3f82], [1 + 2 ** -8 + 2 ** -40, 0x3f81], [1 + 3 * 2 ** -8 - 2 ** -40, 0x3f81],
    [-(1 + 2 ** -8 + 2 ** -40), 0xbf81], [1 + 2 ** -8 + 2 ** -23, 0x3f81],
    // the largest finite value and the overflow threshold (2 - 2^-8)·2^127 (a tie: to even, which is Inf)
    [3.3895313892515355e38, 0x7f7f], [3.3961e38, 0x7f7f], [3.3961775292304740e38, 0x7f80], [3.4028234663852886e38, 0x7f80],
    [1e39, 0x7f80], [-1e300, 0xff80],
    // subnormals: 2^-133 is the smallest; 2^-134 is a tie with 0; the smallest normal is 2^-126
    [2 ** -133, 0x0001], [2 ** -134, 0x0000], [1.5 * 2 ** -134, 0x0001], [3 * 2 ** -134, 0x0002], [2 ** -126, 0x0080],
    [-(2 ** -133), 0x8001], [2 ** -149, 0x0000], [5e-324, 0x0000], [2 ** -126 - 2 ** -134, 0x0080],
  ])('floatToBf16Bits(%p) === %p', (x, b) => {
    expect(bits(x)).toBe(b);
    expect(exactBits(x)).toBe(b); // the test's reference agrees with the hand-written table
  });

  test('NaN → quiet NaN 0x7fc0 (sign kept); every non-NaN bit pattern round-trips exactly', () => {
    expect(bits(NaN)).toBe(0x7fc0);
    const f = new Float32Array(new Uint32Array([0xffc00001]).buffer);
    expect(bits(f[0]) & 0x7fc0).toBe(0x7fc0);
    expect(value(0x7fc1)).toBeNaN();
    expect(value(0xff81)).toBeNaN();
    expect(Object.is(value(0x8000), -0)).toBe(true);
    expect(value(0x7f7f)).toBe(3.3895313892515355e38);
    expect(value(0x0001)).toBe(2 ** -133);
    expect(value(0xff80)).toBe(-Infinity);
    for (let b = 0; b < 0x10000; b++) {
      if ((b & 0x7f80) === 0x7f80 && b & 0x7f) continue; // NaN payloads
      if (bits(value(b)) !== b) throw new Error(`0x${b.toString(16)} does not round-trip`);
    }
  });

  test('random doubles (every magnitude, ties and near-ties) match the exact reference, host and device formulas', () => {
    let s = 12345;
    const next = (): number => { s = (Math.imul(s, 1103515245) + 12345) >>> 0; return s; };
    const dv = new DataView(new ArrayBuffer(8));
    const bad: string[] = [];
    for (let i = 0; i < 200_000 && bad.length < 5; i++) {
      let x: number;
      if (i % 3 === 0) {
        // Random bit patterns over the float32 range and a little beyond (subnormals, overflow).
        dv.setUint32(0, ((next() & 0x7fffffff) % 0x48000000 + 0x36000000) | (next() & 0x80000000));
        dv.setUint32(4, next());
        x = dv.getFloat64(0);
      } else {
        // A bfloat16 value plus a multiple of 2^-9 of its ulp nudged by ±2^-30 (ties, near-ties, exact values).
        const b = next() & 0x7f7f;
        const v = value(b), ulp = value(b + 1) - v;
        x = (v + ulp * ((next() % 513) / 512) * (1 + ((next() % 3) - 1) * 2 ** -30)) * (next() & 1 ? -1 : 1);
      }
      const want = exactBits(x);
      if (bits(x) !== want) bad.push(`${x}: got 0x${bits(x).toString(16)}, want 0x${want.toString(16)}`);
      if (deviceD2bf(x) !== want) bad.push(`${x}: device formula gives 0x${deviceD2bf(x).toString(16)}, want 0x${want.toString(16)}`);
    }
    expect(bad).toEqual([]);
  });

  test('the device float32 formula (nc_f2bf) agrees with the host on every upper half × edge lower halves', () => {
    const bad: string[] = [];
    for (let hi = 0; hi < 0x10000 && bad.length < 5; hi++) {
      for (const lo of [0, 1, 0x7fff, 0x8000, 0x8001, 0xffff]) {
        const u = ((hi << 16) | lo) >>> 0;
        U[0] = u;
        const x = F[0];
        if (Number.isNaN(x)) {
          if ((deviceF2bf(u) & 0x7fc0) !== 0x7fc0) bad.push(`NaN 0x${u.toString(16)}`);
          continue;
        }
        if (deviceF2bf(u) !== bits(x)) bad.push(`0x${u.toString(16)}: device 0x${deviceF2bf(u).toString(16)}, host 0x${bits(x).toString(16)}`);
      }
    }
    expect(bad).toEqual([]);
  });

  test('64-bit integers: the test reference rounds once (the GPU tests rely on it)', () => {
    expect(bf16OfBig(2n ** 56n + 2n ** 48n + 1n)).toBe(2 ** 56 + 2 ** 49);
    expect(bf16OfBig(2n ** 56n + 2n ** 48n)).toBe(2 ** 56); // a tie: to even
    expect(bf16OfBig(-(2n ** 63n) + 1n)).toBe(-(2 ** 63));
    expect(bf16OfBig(2n ** 64n - 1n)).toBe(2 ** 64);
    expect(bf16OfBig(300n)).toBe(300);
  });

  test('argument checks', () => {
    expect(() => bits('1' as unknown as number)).toThrow(TypeError);
    expect(() => value(null as unknown as number)).toThrow(TypeError);
  });
});

describe('bfloat16: scalars, packing and host arrays', () => {
  test('cuda.bfloat16(x) holds the rounded value; packed as its bits', () => {
    expect(cuda.bfloat16(1.1).value).toBe(1.1015625);
    expect(String(cuda.bfloat16(0.5))).toBe('bfloat16(0.5)');
    expect(cuda.bfloat16(1e39).value).toBe(Infinity);
    expect(coerce(DTYPES.bfloat16, true)).toBe(1);
    const dv = new DataView(new ArrayBuffer(2));
    writeScalar(dv, 0, DTYPES.bfloat16, 1);
    expect([dv.getUint8(0), dv.getUint8(1)]).toEqual([0x80, 0x3f]);
    writeScalar(dv, 0, DTYPES.bfloat16, 1 + 2 ** -8 + 2 ** -40);
    expect(dv.getUint16(0, true)).toBe(0x3f81);
  });

  test('host elements: numbers are rounded to bits, bits decode to numbers', () => {
    const h = new Uint16Array(3);
    setElement(h, DTYPES.bfloat16, 0, 0.1);
    setElement(h, DTYPES.bfloat16, 1, -Infinity);
    setElement(h, DTYPES.bfloat16, 2, true);
    expect([...h]).toEqual([0x3dcd, 0xff80, 0x3f80]);
    expect([0, 1, 2].map((i) => getElement(h, DTYPES.bfloat16, i))).toEqual([0.10009765625, -Infinity, 1]);
  });

  test('toGpu input: Uint16Array bits are reinterpreted; numbers and other arrays convert', () => {
    const u = hostInput(new Uint16Array([0x3f80, 0x4000]), { dtype: 'bfloat16' });
    expect([u.dtype.name, u.convertTo, [...(u.h as Uint16Array)]]).toEqual(['bfloat16', null, [0x3f80, 0x4000]]);
    const n = hostInput([1, 1 + 2 ** -8 + 2 ** -40, NaN], { dtype: 'bfloat16' });
    expect([n.dtype.name, [...(n.h as Uint16Array)]]).toEqual(['bfloat16', [0x3f80, 0x3f81, 0x7fc0]]);
    const f = hostInput(new Float32Array([1, 2]), { dtype: 'bfloat16' });
    expect([f.dtype.name, f.convertTo?.name]).toEqual(['float32', 'bfloat16']); // converted on the GPU (astype)
    const F16 = (globalThis as { Float16Array?: new (xs: number[]) => ArrayBufferView }).Float16Array;
    if (F16) { // Node 24+: a Float16Array's values convert; they are not bfloat16 bits
      const h = hostInput(new F16([1.5]), { dtype: 'bfloat16' });
      expect([h.dtype.name, h.convertTo?.name]).toEqual(['float16', 'bfloat16']);
    }
  });
});
