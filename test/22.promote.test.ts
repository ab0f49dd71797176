/**
 * Layer 22: type promotion (NumPy 2 / NEP 50) and casting rules — pure TypeScript, no GPU. The
 * tables are NumPy 2's `np.promote_types`, `np.result_type` with Python scalars and
 * `np.can_cast`, written out by hand (not derived from the implementation).
 */
import { DTYPES, DTypeName, dtype, float32, int8 } from '../lib/base/dtype';
import { Operand, canCast, promoteTypes, resultType, trueDivideType } from '../lib/base/promote';
import { expectCode } from './helpers';

const CODES: Record<string, DTypeName> = {
  '?': 'bool', i1: 'int8', u1: 'uint8', i2: 'int16', u2: 'uint16', i4: 'int32', u4: 'uint32', i8: 'int64',
  u8: 'uint64', f2: 'float16', f4: 'float32', f8: 'float64', c8: 'complex64', c16: 'complex128',
};
const ORDER = ['?', 'i1', 'u1', 'i2', 'u2', 'i4', 'u4', 'i8', 'u8', 'f2', 'f4', 'f8', 'c8', 'c16'];

// np.promote_types(row, column), NumPy 2.
const PROMOTE = `
     ?   i1  u1  i2  u2  i4  u4  i8  u8  f2  f4  f8  c8  c16
?    ?   i1  u1  i2  u2  i4  u4  i8  u8  f2  f4  f8  c8  c16
i1   i1  i1  i2  i2  i4  i4  i8  i8  f8  f2  f4  f8  c8  c16
u1   u1  i2  u1  i2  u2  i4  u4  i8  u8  f2  f4  f8  c8  c16
i2   i2  i2  i2  i2  i4  i4  i8  i8  f8  f4  f4  f8  c8  c16
u2   u2  i4  u2  i4  u2  i4  u4  i8  u8  f4  f4  f8  c8  c16
i4   i4  i4  i4  i4  i4  i4  i8  i8  f8  f8  f8  f8  c16 c16
u4   u4  i8  u4  i8  u4  i8  u4  i8  u8  f8  f8  f8  c16 c16
i8   i8  i8  i8  i8  i8  i8  i8  i8  f8  f8  f8  f8  c16 c16
u8   u8  f8  u8  f8  u8  f8  u8  f8  u8  f8  f8  f8  c16 c16
f2   f2  f2  f2  f4  f4  f8  f8  f8  f8  f2  f4  f8  c8  c16
f4   f4  f4  f4  f4  f4  f8  f8  f8  f8  f4  f4  f8  c8  c16
f8   f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  f8  c16 c16
c8   c8  c8  c8  c8  c8  c16 c16 c16 c16 c8  c8  c16 c8  c16
c16  c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16 c16`;

// np.can_cast(row, column, 'safe'): the targets each dtype casts to safely, NumPy 2.
const SAFE: Record<string, string> = {
  '?': '? i1 u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16',
  i1: 'i1 i2 i4 i8 f2 f4 f8 c8 c16',
  u1: 'u1 i2 u2 i4 u4 i8 u8 f2 f4 f8 c8 c16',
  i2: 'i2 i4 i8 f4 f8 c8 c16',
  u2: 'u2 i4 u4 i8 u8 f4 f8 c8 c16',
  i4: 'i4 i8 f8 c16',
  u4: 'u4 i8 u8 f8 c16',
  i8: 'i8 f8 c16',
  u8: 'u8 f8 c16',
  f2: 'f2 f4 f8 c8 c16',
  f4: 'f4 f8 c8 c16',
  f8: 'f8 c16',
  c8: 'c8 c16',
  c16: 'c16',
};

function table(text: string): Array<[string, string, string]> {
  const lines = text.trim().split('\n').map((l) => l.trim().split(/\s+/));
  const cols = lines[0];
  expect(cols).toEqual(ORDER);
  const out: Array<[string, string, string]> = [];
  for (const row of lines.slice(1)) {
    expect(row.length).toBe(cols.length + 1);
    cols.forEach((c, j) => out.push([row[0], c, row[j + 1]]));
  }
  return out;
}

const PAIRS = table(PROMOTE);
const dt = (code: string) => DTYPES[CODES[code]];

describe('promoteTypes (np.promote_types, NumPy 2)', () => {
  test('the table covers all 14 x 14 pairs and is symmetric', () => {
    expect(PAIRS).toHaveLength(196);
    const m = new Map(PAIRS.map(([a, b, r]) => [`${a},${b}`, r]));
    for (const [a, b, r] of PAIRS) expect(m.get(`${b},${a}`)).toBe(r);
  });

  test.each(PAIRS)('%s + %s → %s', (a, b, want) => {
    expect(promoteTypes(dt(a), dt(b)).name).toBe(CODES[want]);
    expect(resultType(dt(a), dt(b)).name).toBe(CODES[want]);
  });

  test('named pairs from the brief', () => {
    const r = (a: DTypeName, b: DTypeName) => resultType(a, b).name;
    expect(r('uint8', 'int8')).toBe('int16');
    expect(r('int64', 'uint64')).toBe('float64');
    expect(r('int32', 'float32')).toBe('float64');
    expect(r('int16', 'float16')).toBe('float32');
    expect(r('uint8', 'float16')).toBe('float16');
    expect(r('bool', 'bool')).toBe('bool');
    expect(r('bool', 'int8')).toBe('int8');
    expect(r('float32', 'complex64')).toBe('complex64');
    expect(r('float64', 'complex64')).toBe('complex128');
    expect(r('int8', 'uint16')).toBe('int32');
    expect(r('uint32', 'int8')).toBe('int64');
    expect(r('bool', 'float16')).toBe('float16');
  });

  test('accepts any dtype spelling', () => {
    expect(promoteTypes('uint8', Int8Array).name).toBe('int16');
    expect(promoteTypes(float32, 'int32').name).toBe('float64');
  });
});

describe('resultType with weak Python-like scalars (NEP 50)', () => {
  const INT = 1;
  const FLOAT = 1.5;
  const BOOL = true;
  const CPLX = { re: 1, im: 2 };
  // dtype, + int, + float, + bool, + complex
  const WEAK: Array<[DTypeName, DTypeName, DTypeName, DTypeName, DTypeName]> = [
    ['bool', 'int64', 'float64', 'bool', 'complex128'],
    ['int8', 'int8', 'float64', 'int8', 'complex128'],
    ['uint8', 'uint8', 'float64', 'uint8', 'complex128'],
    ['int16', 'int16', 'float64', 'int16', 'complex128'],
    ['uint16', 'uint16', 'float64', 'uint16', 'complex128'],
    ['int32', 'int32', 'float64', 'int32', 'complex128'],
    ['uint32', 'uint32', 'float64', 'uint32', 'complex128'],
    ['int64', 'int64', 'float64', 'int64', 'complex128'],
    ['uint64', 'uint64', 'float64', 'uint64', 'complex128'],
    ['float16', 'float16', 'float16', 'float16', 'complex64'],
    ['float32', 'float32', 'float32', 'float32', 'complex64'],
    ['float64', 'float64', 'float64', 'float64', 'complex128'],
    ['complex64', 'complex64', 'complex64', 'complex64', 'complex64'],
    ['complex128', 'complex128', 'complex128', 'complex128', 'complex128'],
  ];
  test.each(WEAK)('%s with int → %s, float → %s, bool → %s, complex → %s', (d, i, f, b, c) => {
    const a = dtype(d);
    expect(resultType(a, INT).name).toBe(i);
    expect(resultType(INT, a).name).toBe(i);
    expect(resultType(a, 1n).name).toBe(i);
    expect(resultType(a, FLOAT).name).toBe(f);
    expect(resultType(FLOAT, a).name).toBe(f);
    expect(resultType(a, NaN).name).toBe(f);
    expect(resultType(a, -Infinity).name).toBe(f);
    expect(resultType(a, BOOL).name).toBe(b);
    expect(resultType(false, a).name).toBe(b);
    expect(resultType(a, CPLX).name).toBe(c);
    expect(resultType(CPLX, a).name).toBe(c);
  });

  test('examples from the brief', () => {
    expect(resultType(DTYPES.int8, 1).name).toBe('int8');
    expect(resultType(DTYPES.int8, 1.5).name).toBe('float64');
    expect(resultType(DTYPES.float32, 1.5).name).toBe('float32');
    expect(resultType(DTYPES.int32, { re: 0, im: 1 }).name).toBe('complex128');
    expect(resultType(DTYPES.float32, { re: 0, im: 1 }).name).toBe('complex64');
    expect(resultType(DTYPES.float16, { re: 0, im: 1 }).name).toBe('complex64');
  });

  test('only weak operands give the default types', () => {
    expect(resultType(1).name).toBe('int64');
    expect(resultType(1, 2).name).toBe('int64');
    expect(resultType(1n).name).toBe('int64');
    expect(resultType(1, 2.5).name).toBe('float64');
    expect(resultType(0.5).name).toBe('float64');
    expect(resultType(true, false).name).toBe('bool');
    expect(resultType(true, 1).name).toBe('int64');
    expect(resultType(1, { re: 0, im: 0 }).name).toBe('complex128');
    expect(resultType(true, 2.5, 3).name).toBe('float64');
  });

  test('several operands: strong dtypes promote together, then the highest weak kind applies', () => {
    expect(resultType(DTYPES.float16, 1, { re: 1, im: 0 }).name).toBe('complex64');
    expect(resultType(DTYPES.int8, 1, 2.5).name).toBe('float64');
    expect(resultType(DTYPES.uint8, true).name).toBe('uint8');
    expect(resultType(DTYPES.uint8, DTYPES.int8, 300).name).toBe('int16');
    expect(resultType(DTYPES.int8, DTYPES.float32, 300).name).toBe('float32');
    expect(resultType(DTYPES.int8, DTYPES.uint8, DTYPES.float16).name).toBe('float16');
    expect(resultType(DTYPES.int16, DTYPES.float16, 2.5).name).toBe('float32');
    expect(resultType(DTYPES.bool, DTYPES.bool, 1.5).name).toBe('float64');
  });

  // NumPy's test_permutations_do_not_influence_result: result_type of a sequence is not a
  // pairwise fold (uint16 + int16 → int32, int32 + float16 → float64, but the three give float32).
  test.each([
    [['uint16', 'int16', 'float16'], 'float32'],
    [['uint8', 'int16', 'float16'], 'float32'],
    [['uint8', 'int8', 'int16'], 'int16'],
    [['int8', 'uint8', 'float16'], 'float16'],
    [['int16', 'uint16', 'float32'], 'float32'],
    [['int16', 'uint16', 'complex64'], 'complex64'],
    [['uint32', 'int8', 'int16'], 'int64'],
    [['uint16', 'int8', 'uint8'], 'int32'],
    [['uint64', 'int8', 'float16'], 'float64'],
    [['float16', 'int16', 'uint16', { re: 0, im: 1 }], 'complex64'],
    [['int32', 'float16', { re: 0, im: 1 }], 'complex128'],
    [['int16', 'uint16', 1.5], 'float64'],
    [[1, 1, 'float64'], 'float64'],
    [[1, 1.5, 'complex128'], 'complex128'],
    [[1, { re: 0, im: 1 }, 'float64'], 'complex128'],
    [[1.5, 1.5, 'int64'], 'float64'],
    [[1.5, { re: 0, im: 1 }, 'float64'], 'complex128'],
    [[{ re: 0, im: 1 }, { re: 0, im: 1 }, 'float64'], 'complex128'],
    [[1, true, 'bool'], 'int64'],
  ] as Array<[Operand[], DTypeName]>)('every order of %j → %s', (ops, want) => {
    const perms = (xs: Operand[]): Operand[][] => (xs.length <= 1 ? [xs]
      : xs.flatMap((x, i) => perms([...xs.slice(0, i), ...xs.slice(i + 1)]).map((p) => [x, ...p])));
    for (const p of perms(ops)) expect([p, resultType(...p).name]).toEqual([p, want]);
  });

  test('typed scalars and arrays (anything with a dtype) are strong', () => {
    expect(resultType(float32(2), 1.5).name).toBe('float32');
    expect(resultType(int8(1), 1).name).toBe('int8');
    expect(resultType(int8(1), float32(1)).name).toBe('float32');
    expect(resultType({ dtype: DTYPES.uint16 }, 7).name).toBe('uint16');
    expect(resultType('float16', 1e4).name).toBe('float16');
  });

  test('an integer scalar that does not fit the integer result is RangeError ERR_OUT_OF_RANGE', () => {
    const e = expectCode(() => resultType(DTYPES.uint8, 300), RangeError, 'ERR_OUT_OF_RANGE');
    expect(e.message).toContain('300');
    expect(e.message).toContain('uint8');
    expect(resultType(DTYPES.uint8, 255).name).toBe('uint8');
    expect(resultType(DTYPES.uint8, 0).name).toBe('uint8');
    expectCode(() => resultType(DTYPES.uint8, -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resultType(DTYPES.int8, 128), RangeError, 'ERR_OUT_OF_RANGE');
    expect(resultType(DTYPES.int8, -128).name).toBe('int8');
    expectCode(() => resultType(DTYPES.int8, -129), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resultType(DTYPES.int16, 40000), RangeError, 'ERR_OUT_OF_RANGE');
    expect(resultType(DTYPES.uint16, 65535).name).toBe('uint16');
    expectCode(() => resultType(DTYPES.uint32, 2 ** 32), RangeError, 'ERR_OUT_OF_RANGE');
    expect(resultType(DTYPES.int64, 2n ** 63n - 1n).name).toBe('int64');
    expectCode(() => resultType(DTYPES.int64, 2n ** 63n), RangeError, 'ERR_OUT_OF_RANGE');
    expect(resultType(DTYPES.uint64, 2n ** 64n - 1n).name).toBe('uint64');
    expectCode(() => resultType(DTYPES.uint64, 2 ** 64), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resultType(DTYPES.uint64, -1n), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resultType(DTYPES.bool, 2 ** 63), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resultType(DTYPES.uint8, DTYPES.int8, 300, 40000), RangeError, 'ERR_OUT_OF_RANGE');
    // Not an integer result: no overflow check (NumPy gives inf for float16).
    expect(resultType(DTYPES.float16, 1e300).name).toBe('float16');
    expect(resultType(DTYPES.uint8, 300.5).name).toBe('float64');
    expect(resultType(DTYPES.uint8, 300, 0.5).name).toBe('float64');
  });

  test('bad operands', () => {
    expectCode(() => resultType(), TypeError, 'ERR_MISSING_ARGS');
    for (const bad of [null, undefined, 'nope', {}, { re: 1 }, [1], Symbol('s')]) {
      let caught: unknown;
      try { resultType(bad as unknown as Operand); } catch (e) { caught = e; }
      expect(caught).toBeInstanceOf(TypeError);
      expect((caught as { code: string }).code).toMatch(/^ERR_INVALID_ARG_(TYPE|VALUE)$/);
    }
  });
});

describe('trueDivideType', () => {
  test.each([
    ['bool', 'float64'], ['int8', 'float64'], ['uint8', 'float64'], ['int16', 'float64'],
    ['uint16', 'float64'], ['int32', 'float64'], ['uint32', 'float64'], ['int64', 'float64'],
    ['uint64', 'float64'], ['float16', 'float16'], ['float32', 'float32'], ['float64', 'float64'],
    ['complex64', 'complex64'], ['complex128', 'complex128'],
  ] as Array<[DTypeName, DTypeName]>)('%s / %s → %s', (d, want) => {
    expect(trueDivideType(d).name).toBe(want);
    expect(trueDivideType(DTYPES[d]).name).toBe(want);
  });
});

describe('canCast (np.can_cast)', () => {
  const ALL = ORDER.flatMap((a) => ORDER.map((b) => [a, b] as [string, string]));

  test.each(ALL)("'safe' %s → %s", (a, b) => {
    expect(canCast(dt(a), dt(b), 'safe')).toBe(SAFE[a].split(' ').includes(b));
    expect(canCast(dt(a), dt(b))).toBe(SAFE[a].split(' ').includes(b));
  });

  test('promotion gives a type both operands cast to safely, and a minimal one', () => {
    for (const [a, b, r] of PAIRS) {
      expect(canCast(dt(a), dt(r), 'safe')).toBe(true);
      expect(canCast(dt(b), dt(r), 'safe')).toBe(true);
      // No other common safe target lies below the result (the order is not a lattice:
      // int8 and uint8 both reach int16 and float16, neither below the other).
      for (const c of ORDER) {
        if (c !== r && SAFE[a].split(' ').includes(c) && SAFE[b].split(' ').includes(c)) {
          expect([a, b, c, canCast(dt(c), dt(r), 'safe')]).toEqual([a, b, c, false]);
        }
      }
    }
  });

  // np.can_cast(a, b, 'same_kind'): safe, or kind(a) <= kind(b) in b < u < i < f < c.
  test.each([
    ['f8', 'f4', true], ['f8', 'f2', true], ['i8', 'i1', true], ['u8', 'u1', true], ['u8', 'i1', true],
    ['u1', 'i1', true], ['i1', 'u1', false], ['i8', 'u8', false], ['i4', 'u8', false], ['f4', 'i4', false],
    ['f2', 'u8', false], ['c8', 'f8', false], ['c16', 'f8', false], ['c16', 'c8', true], ['i8', '?', false],
    ['f4', '?', false], ['?', '?', true], ['?', 'u1', true], ['f2', 'c8', true], ['f8', 'c8', true],
    ['i8', 'f2', true], ['u8', 'c8', true], ['i4', 'i8', true], ['c8', 'i8', false],
  ] as Array<[string, string, boolean]>)("'same_kind' %s → %s: %s", (a, b, want) => {
    expect(canCast(dt(a), dt(b), 'same_kind')).toBe(want);
  });

  test("'unsafe', 'no', 'equiv' and bad rules", () => {
    expect(canCast('complex128', 'bool', 'unsafe')).toBe(true);
    expect(canCast('float64', 'int8', 'unsafe')).toBe(true);
    expect(canCast('float32', 'float32', 'no')).toBe(true);
    expect(canCast('float32', 'float64', 'no')).toBe(false);
    expect(canCast('int8', 'int8', 'equiv')).toBe(true);
    expect(canCast('int8', 'int16', 'equiv')).toBe(false);
    expectCode(() => canCast('int8', 'int16', 'bogus' as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => canCast('int8', 'int17' as never), TypeError, 'ERR_INVALID_ARG_VALUE');
  });
});

// bfloat16 is not a NumPy type: PyTorch's rules (torch.promote_types / torch.result_type), by hand.
describe('bfloat16 (PyTorch promotion)', () => {
  const bf = 'bfloat16';
  test.each([
    ['bool', bf], ['int8', bf], ['uint8', bf], ['int16', bf], ['uint16', bf], ['int32', bf], ['uint32', bf],
    ['int64', bf], ['uint64', bf], ['float16', 'float32'], [bf, bf], ['float32', 'float32'], ['float64', 'float64'],
    ['complex64', 'complex64'], ['complex128', 'complex128'],
  ] as Array<[DTypeName, DTypeName]>)('bfloat16 + %s → %s (both orders)', (o, want) => {
    expect(promoteTypes(bf, o).name).toBe(want);
    expect(promoteTypes(o, bf).name).toBe(want);
    expect(resultType(bf, o).name).toBe(want);
    expect(resultType(o, bf).name).toBe(want);
  });

  test('JS scalars do not widen it (torch: a Python scalar keeps a bfloat16 tensor bfloat16)', () => {
    expect(resultType(DTYPES.bfloat16, 1).name).toBe(bf);
    expect(resultType(DTYPES.bfloat16, 2.5).name).toBe(bf);
    expect(resultType(DTYPES.bfloat16, 1e300).name).toBe(bf);
    expect(resultType(DTYPES.bfloat16, true).name).toBe(bf);
    expect(resultType(DTYPES.bfloat16, 7n).name).toBe(bf);
    expect(resultType(DTYPES.bfloat16, { re: 0, im: 1 }).name).toBe('complex64');
    expect(trueDivideType(bf).name).toBe(bf);
  });

  test('sequences: the same result in every order', () => {
    const cases: Array<[DTypeName[], DTypeName]> = [
      [[bf, 'int32', 'uint8'], bf], [[bf, 'float16', 'int8'], 'float32'], [[bf, 'int64', 'uint64'], bf],
      [['float16', 'int16', bf], 'float32'], [[bf, 'float64', 'int8'], 'float64'], [[bf, 'complex64', 'int64'], 'complex64'],
      [['uint16', 'int16', bf], bf],
    ];
    for (const [ds, want] of cases) {
      const perms = [ds, [...ds].reverse(), [ds[1], ds[0], ds[2]], [ds[2], ds[0], ds[1]]];
      for (const p of perms) expect([p, resultType(...p).name]).toEqual([p, want]);
    }
  });

  test("canCast: 'safe' from bool/int8/uint8 and to float32/float64/complex; never with float16", () => {
    for (const f of ['bool', 'int8', 'uint8', bf] as DTypeName[]) expect([f, canCast(f, bf, 'safe')]).toEqual([f, true]);
    for (const f of ['int16', 'uint16', 'int32', 'float16', 'float32'] as DTypeName[]) expect([f, canCast(f, bf, 'safe')]).toEqual([f, false]);
    for (const t of ['float32', 'float64', 'complex64', 'complex128'] as DTypeName[]) expect([t, canCast(bf, t, 'safe')]).toEqual([t, true]);
    for (const t of ['float16', 'int64', 'bool'] as DTypeName[]) expect([t, canCast(bf, t, 'safe')]).toEqual([t, false]);
    expect(canCast(bf, 'float16', 'same_kind')).toBe(true);
    expect(canCast('float64', bf, 'same_kind')).toBe(true);
    expect(canCast(bf, 'int32', 'same_kind')).toBe(false);
  });
});
