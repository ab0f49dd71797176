/**
 * Layer 23: matmul planning without a GPU (lib/linalg/plan.ts) and cuBLAS loading. The plans are
 * checked by running them through a CPU model of cublasGemmStridedBatchedEx (column-major, with
 * the argument checks cuBLAS makes) on flat buffers holding strided views, and comparing with a
 * plain row-major product of the logical arrays: the row-major trick, op N/T/C choices, leading
 * dimensions, batch strides and broadcasting are all exercised here. The GPU suite is test/91.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { CublasError, DTYPES, linalg } from '../lib';
import {
  GEMM_TYPES, GemmParams, MatmulShape, OP_C, OP_N, OP_T, OperandLayout, OperandPlan, batchStride, checkPrecision, computeType, gemmParams,
  gemmType, matmulShape, matrixLayout, operandPlan,
} from '../lib/linalg/plan';
import { native } from '../lib/cuda/native';
import { ArrayLayout, PlanMemo } from '../lib/linalg/plan_cache';
import { DIST, expectCode } from './helpers';
import { rng } from './reduce-reference';

describe('matmulShape: NumPy matmul shape rules', () => {
  test.each([
    [[3], [3], []], [[3], [3, 4], [4]], [[2, 3], [3], [2]], [[2, 3], [3, 4], [2, 4]],
    [[5, 2, 3], [3, 4], [5, 2, 4]], [[2, 1, 2, 3], [6, 3, 4], [2, 6, 2, 4]], [[3], [7, 3, 4], [7, 4]],
    [[7, 2, 3], [3], [7, 2]], [[0, 2, 3], [3, 4], [0, 2, 4]], [[2, 0], [0, 4], [2, 4]],
  ])('%j @ %j -> %j', (a, b, out) => {
    expect(matmulShape(a, b).out).toEqual(out);
  });

  test('K mismatch: RangeError ERR_SHAPE_MISMATCH naming both shapes', () => {
    const e = expectCode(() => matmulShape([2, 3], [4, 5]), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(e.message).toContain('(2,3)');
    expect(e.message).toContain('(4,5)');
    expectCode(() => matmulShape([3], [4]), RangeError, 'ERR_SHAPE_MISMATCH');
  });

  test('batch dims that do not broadcast: RangeError ERR_SHAPE_MISMATCH', () => {
    const e = expectCode(() => matmulShape([2, 2, 3], [3, 3, 4]), RangeError, 'ERR_SHAPE_MISMATCH');
    expect(e.message).toContain('(2,2,3)');
    expect(e.message).toContain('(3,3,4)');
  });

  test('0-d operands: TypeError ERR_INVALID_ARG_VALUE', () => {
    expectCode(() => matmulShape([], [3]), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => matmulShape([3], []), TypeError, 'ERR_INVALID_ARG_VALUE');
  });
});

describe('dtypes and compute types', () => {
  test('integer and bool dtypes: TypeError ERR_INVALID_DTYPE saying what to do', () => {
    for (const d of ['bool', 'int8', 'uint8', 'int32', 'int64', 'uint64'] as const) {
      const e = expectCode(() => gemmType(DTYPES[d], 'matmul'), TypeError, 'ERR_INVALID_DTYPE');
      expect(e.message).toContain('astype');
    }
  });

  test('float32 is exact by default (CUBLAS_COMPUTE_32F); tf32 is opt-in; float16 accumulates in float32', () => {
    expect(computeType(gemmType(DTYPES.float32, 'm'), undefined, 'm')).toBe(68);
    expect(computeType(gemmType(DTYPES.float32, 'm'), 'exact', 'm')).toBe(68);
    expect(computeType(gemmType(DTYPES.float32, 'm'), 'tf32', 'm')).toBe(77);
    expect(computeType(gemmType(DTYPES.complex64, 'm'), 'tf32', 'm')).toBe(77);
    expect(computeType(gemmType(DTYPES.float16, 'm'), undefined, 'm')).toBe(68);
    expect(computeType(gemmType(DTYPES.float64, 'm'), 'tf32', 'm')).toBe(70);
    expectCode(() => computeType(gemmType(DTYPES.float32, 'm'), 'fast', 'm'), TypeError, 'ERR_INVALID_ARG_VALUE');
  });

  test('checkPrecision (matmul\'s, and dot\'s and inner\'s on every path): exact, tf32 or undefined; anything else a TypeError', () => {
    for (const p of [undefined, 'exact', 'tf32'] as const) expect(checkPrecision(p, 'dot')).toBe(p);
    for (const p of ['fast', 'TF32', '', null, 1, true, {}, Symbol('tf32')]) {
      expect(expectCode(() => checkPrecision(p, 'dot'), TypeError, 'ERR_INVALID_ARG_VALUE').message)
        .toMatch(/^dot: precision must be 'exact' or 'tf32'\. Received /);
    }
  });

  // The values are cuBLAS's ABI: checked against the toolkit's headers where they are installed.
  const INCLUDE = path.join(process.env.CUDA_HOME || '/usr/local/cuda', 'include');
  const haveHeaders = fs.existsSync(path.join(INCLUDE, 'cublas_api.h'));
  (haveHeaders ? test : test.skip)('GEMM_TYPES match library_types.h and cublas_api.h', () => {
    const text = fs.readFileSync(path.join(INCLUDE, 'library_types.h'), 'utf8') + fs.readFileSync(path.join(INCLUDE, 'cublas_api.h'), 'utf8');
    const value = (name: string): number => Number(new RegExp(`\\b${name}\\s*=\\s*(\\d+)`).exec(text)![1]);
    const want: Record<string, [string, string, string]> = {
      float16: ['CUDA_R_16F', 'CUBLAS_COMPUTE_32F', 'CUBLAS_COMPUTE_32F'],
      bfloat16: ['CUDA_R_16BF', 'CUBLAS_COMPUTE_32F', 'CUBLAS_COMPUTE_32F'],
      float32: ['CUDA_R_32F', 'CUBLAS_COMPUTE_32F', 'CUBLAS_COMPUTE_32F_FAST_TF32'],
      float64: ['CUDA_R_64F', 'CUBLAS_COMPUTE_64F', 'CUBLAS_COMPUTE_64F'],
      complex64: ['CUDA_C_32F', 'CUBLAS_COMPUTE_32F', 'CUBLAS_COMPUTE_32F_FAST_TF32'],
      complex128: ['CUDA_C_64F', 'CUBLAS_COMPUTE_64F', 'CUBLAS_COMPUTE_64F'],
    };
    expect(Object.keys(GEMM_TYPES).sort()).toEqual(Object.keys(want).sort());
    for (const [d, [data, compute, tf32]] of Object.entries(want)) {
      const t = GEMM_TYPES[d as keyof typeof GEMM_TYPES]!;
      expect([d, t.data, t.compute, t.tf32]).toEqual([d, value(data), value(compute), value(tf32)]);
    }
    expect([OP_N, OP_T, OP_C]).toEqual([value('CUBLAS_OP_N'), value('CUBLAS_OP_T'), value('CUBLAS_OP_C')]);
  });
});

describe('matrixLayout and batchStride', () => {
  test('row-major, column-major (transposed views), leading dimensions of sliced views', () => {
    expect(matrixLayout(3, 4, 4, 1)).toEqual({ rowMajor: true, ld: 4 });
    expect(matrixLayout(4, 3, 1, 4)).toEqual({ rowMajor: false, ld: 4 });
    expect(matrixLayout(3, 4, 10, 1)).toEqual({ rowMajor: true, ld: 10 }); // rows of a wider array
    expect(matrixLayout(3, 4, 2, 1)).toBeNull(); // rows overlap: ld < cols
    expect(matrixLayout(3, 4, 8, 2)).toBeNull(); // no unit stride: copy
    expect(matrixLayout(3, 4, -4, 1)).toBeNull(); // reversed rows: copy
    expect(matrixLayout(3, 4, 0, 1)).toBeNull(); // broadcast rows: copy
    expect(matrixLayout(1, 5, 0, 3)).toEqual({ rowMajor: false, ld: 3 }); // a strided row vector
    expect(matrixLayout(5, 1, 3, 0)).toEqual({ rowMajor: true, ld: 3 }); // a strided column vector
    expect(matrixLayout(1, 5, 0, 1, true)).toEqual({ rowMajor: false, ld: 1 }); // conjugated: column form only
  });

  test('batch dims collapse to one stride, 0 when broadcast, null otherwise', () => {
    expect(batchStride([2, 3], [12, 4])).toBe(4);
    expect(batchStride([2, 3], [0, 0])).toBe(0);
    expect(batchStride([2, 1, 3], [12, 99, 4])).toBe(4);
    expect(batchStride([2, 3], [0, 4])).toBeNull();
    expect(batchStride([2, 3], [4, 12])).toBeNull();
    expect(batchStride([4], [-6])).toBeNull();
    expect(batchStride([], [])).toBe(0);
  });
});

// ---- a CPU model of cublasGemmStridedBatchedEx --------------------------------------------------

type Cx = { re: number; im: number };
const mul = (a: Cx, b: Cx): Cx => ({ re: a.re * b.re - a.im * b.im, im: a.re * b.im + a.im * b.re });

/** Column-major C = op(A)·op(B) for each batch, with the argument checks cuBLAS makes. */
function cpuGemm(g: GemmParams, A: Cx[], aOff: number, B: Cx[], bOff: number): Cx[] {
  const { m, n, k } = g;
  const fail = (what: string): never => { throw new Error(`CUBLAS_STATUS_INVALID_VALUE: ${what} (${JSON.stringify(g)})`); };
  if (m < 1 || n < 1 || k < 1 || g.batch < 1) fail('sizes');
  if (g.lda < Math.max(1, g.transa === OP_N ? m : k)) fail('lda');
  if (g.ldb < Math.max(1, g.transb === OP_N ? k : n)) fail('ldb');
  if (g.ldc < Math.max(1, m)) fail('ldc');
  if (g.transa === OP_C) fail('this model conjugates only B (vdot conjugates the left operand, cuBLAS\'s B)');
  const C: Cx[] = new Array(g.batch * g.strideC).fill(null).map(() => ({ re: NaN, im: NaN }));
  for (let p = 0; p < g.batch; p++) {
    for (let i = 0; i < m; i++) {
      for (let j = 0; j < n; j++) {
        let s = { re: 0, im: 0 };
        for (let l = 0; l < k; l++) {
          const a = A[aOff + p * g.strideA + (g.transa === OP_N ? i + l * g.lda : l + i * g.lda)];
          let b = B[bOff + p * g.strideB + (g.transb === OP_N ? l + j * g.ldb : j + l * g.ldb)];
          if (a === undefined || b === undefined) fail('read outside the buffer');
          if (g.transb === OP_C) b = { re: b.re, im: -b.im };
          const t = mul(a, b);
          s = { re: s.re + t.re, im: s.im + t.im };
        }
        C[p * g.strideC + i + j * g.ldc] = s;
      }
    }
  }
  return C;
}

/** A strided operand: a flat base buffer, element strides and offset, and its logical elements. */
interface Operand extends OperandLayout { base: Cx[]; offset: number }

function at(x: Operand, idx: number[]): Cx {
  return x.base[x.offset + idx.reduce((s, v, d) => s + v * x.strides[d], 0)];
}

/** The same content in C order (what matmul's copy fallback makes), batch broadcast written out when asked. */
function cOrder(x: Operand, shape: readonly number[] = x.shape): Operand {
  const out: Cx[] = [];
  const off = shape.length - x.shape.length;
  const walk = (idx: number[]): void => {
    if (idx.length === shape.length) {
      out.push(at(x, idx.slice(off).map((v, d) => (x.shape[d] === 1 ? 0 : v))));
      return;
    }
    for (let i = 0; i < shape[idx.length]; i++) walk([...idx, i]);
  };
  walk([]);
  const strides = shape.map((_, d) => shape.slice(d + 1).reduce((p, q) => p * q, 1));
  return { base: out, offset: 0, shape, strides };
}

/** What lib/linalg/matmul.ts product() does, with the GEMM run by the CPU model. */
function planAndRun(a: Operand, b: Operand, conj = false): { out: Cx[]; copied: number } {
  const s = matmulShape(a.shape, b.shape);
  let copied = 0;
  const prepare = (x: Operand, isA: boolean): [Operand, OperandPlan] => {
    const p = operandPlan(x, s, isA, isA && conj);
    if (p) return [x, p];
    copied++;
    const c = cOrder(x, x.shape.length > 2 ? [...s.batch, ...x.shape.slice(-2)] : x.shape);
    return [c, operandPlan(c, s, isA, isA && conj)!];
  };
  const [xa, pa] = prepare(a, true);
  const [yb, pb] = prepare(b, false);
  const g = gemmParams(s, pa, pb, conj);
  // cuBLAS's first operand is B's buffer (Cᵀ = Bᵀ·Aᵀ); its result is C in row-major order.
  const out = cpuGemm(g, yb.base, yb.offset, xa.base, xa.offset);
  return { out: out.slice(0, s.out.reduce((p, q) => p * q, 1)), copied };
}

/** NumPy's matmul of the logical arrays, row-major. */
function reference(a: Operand, b: Operand, conj = false): Cx[] {
  const s: MatmulShape = matmulShape(a.shape, b.shape);
  const out: Cx[] = [];
  const batchIdx = (shape: readonly number[], idx: number[]): number[] => {
    const own = shape.slice(0, -2);
    return own.map((n, d) => (n === 1 ? 0 : idx[idx.length - own.length + d]));
  };
  const walk = (idx: number[]): void => {
    if (idx.length < s.batch.length) {
      for (let i = 0; i < s.batch[idx.length]; i++) walk([...idx, i]);
      return;
    }
    for (let i = 0; i < s.m; i++) {
      for (let j = 0; j < s.n; j++) {
        let sum = { re: 0, im: 0 };
        for (let l = 0; l < s.k; l++) {
          let x = a.shape.length === 1 ? at(a, [l]) : at(a, [...batchIdx(a.shape, idx), i, l]);
          if (conj) x = { re: x.re, im: -x.im };
          const y = b.shape.length === 1 ? at(b, [l]) : at(b, [...batchIdx(b.shape, idx), l, j]);
          const t = mul(x, y);
          sum = { re: sum.re + t.re, im: sum.im + t.im };
        }
        out.push(sum);
      }
    }
  };
  walk([]);
  return out;
}

/** A random operand of `shape` laid out as `kind` in a larger buffer. */
function operand(shape: number[], kind: 'c' | 'T' | 'rows' | 'step' | 'rev' | 'bT', seed: number): Operand {
  const r = rng(seed);
  const value = (): Cx => ({ re: Math.round(r() * 8 - 4), im: Math.round(r() * 8 - 4) });
  const nd = shape.length;
  // The stored (physical) shape and a permutation from logical to physical axes.
  let phys = [...shape];
  let perm = shape.map((_, i) => i);
  if ((kind === 'T' && nd >= 2) || (kind === 'bT' && nd >= 4)) {
    const [p, q] = kind === 'T' ? [nd - 2, nd - 1] : [0, 1];
    perm = perm.map((v) => (v === p ? q : v === q ? p : v));
    phys = perm.map((d) => shape[d]);
  }
  const scale = phys.map(() => 1);
  if (kind === 'rows' && nd >= 2) scale[nd - 2] = 1; // widened below
  if (kind === 'step') scale[nd - 1] = 2;
  const widen = kind === 'rows' && nd >= 2 ? 3 : 0;
  const stored = phys.map((n, d) => n * scale[d] + (d === nd - 1 ? widen : 0));
  const physStrides = stored.map((_, d) => stored.slice(d + 1).reduce((p, q) => p * q, 1) * (d === nd - 1 ? scale[d] : 1));
  const size = stored.reduce((p, q) => p * q, 1);
  const base = Array.from({ length: size + 5 }, value);
  let offset = 2;
  let strides = shape.map((_, d) => physStrides[perm.indexOf(d)]);
  if (kind === 'rev') {
    strides = strides.map((st, d) => (d === nd - 1 ? -st : st));
    offset += (shape[nd - 1] - 1) * -strides[nd - 1];
  }
  return { base, offset, shape, strides };
}

describe('plans run through a CPU model of cuBLAS equal the row-major product', () => {
  const SHAPES: Array<[string, number[], number[]]> = [
    ['1-D·1-D', [17], [17]], ['1-D·2-D', [3], [3, 5]], ['2-D·1-D', [4, 3], [3]], ['2-D·2-D', [3, 17], [17, 5]],
    ['1×1', [1, 1], [1, 1]], ['thin', [2, 5], [5, 2]], ['row·col', [1, 7], [7, 1]], ['col·row', [6, 1], [1, 4]],
    ['batched', [2, 3, 4], [2, 4, 5]], ['broadcast batch', [2, 1, 3, 4], [3, 4, 2]], ['N-D·2-D', [3, 2, 4], [4, 3]],
    ['2-D·N-D', [2, 4], [3, 4, 2]], ['N-D·1-D', [2, 3, 4], [4]], ['1-D·N-D', [4], [2, 4, 3]],
  ];
  const KINDS = ['c', 'T', 'rows', 'step', 'rev', 'bT'] as const;
  test.each(SHAPES)('%s %j @ %j in every layout pair', (_name, sa, sb) => {
    let seed = 1;
    for (const ka of KINDS) {
      for (const kb of KINDS) {
        const a = operand(sa, ka, seed++), b = operand(sb, kb, seed++);
        const { out, copied } = planAndRun(a, b);
        expect([ka, kb, out]).toEqual([ka, kb, reference(a, b)]);
        // Layouts cuBLAS can read go without a copy (two broadcast batch dims are written out).
        const readable = (x: Operand, k: string): boolean =>
          k === 'c' || k === 'T' || k === 'rows' || (x.shape.length === 1 && k === 'step') || (k === 'bT' && x.shape.length < 4);
        if (readable(a, ka) && readable(b, kb) && matmulShape(sa, sb).batch.length <= 1) expect([ka, kb, copied]).toEqual([ka, kb, 0]);
      }
    }
  });

  test('vdot: the left operand conjugated (op C), strided or not', () => {
    for (const [ka, kb] of [['c', 'c'], ['step', 'c'], ['c', 'step'], ['step', 'step']] as const) {
      const a = operand([9], ka, 3), b = operand([9], kb, 4);
      expect(planAndRun(a, b, true).out).toEqual(reference(a, b, true));
    }
  });

  test('sizes beyond cuBLAS int: RangeError ERR_OUT_OF_RANGE', () => {
    const s = matmulShape([2 ** 31, 2], [2, 2]);
    const p: OperandPlan = { layout: { rowMajor: true, ld: 2 }, stride: 0 };
    expectCode(() => gemmParams(s, p, p), RangeError, 'ERR_OUT_OF_RANGE');
  });
});

describe('PlanMemo: plans by operand layout, bounded', () => {
  const f32 = DTYPES.float32, f64 = DTYPES.float64;
  const lay = (shape: number[], strides: number[], dtype = f32): ArrayLayout => ({ shape, strides, dtype });
  const A = lay([4, 3], [12, 4]), B = lay([3, 5], [20, 4]), C = lay([4, 5], [20, 4]);

  test('the same key gives the same plan, for equal arrays as for the same ones', () => {
    const m = new PlanMemo<object>();
    const plan = {};
    m.set(A, B, C, undefined, false, plan);
    expect(m.get(A, B, C, undefined, false)).toBe(plan);
    expect(m.get(lay([4, 3], [12, 4]), lay([3, 5], [20, 4]), lay([4, 5], [20, 4]), undefined, false)).toBe(plan);
    expect(m.size).toBe(1);
  });

  test('different strides, dtypes, out, precision or conjA: different plans', () => {
    const m = new PlanMemo<string>();
    const keys: Array<[ArrayLayout, ArrayLayout, ArrayLayout | null, unknown, boolean]> = [
      [A, B, C, undefined, false],
      [lay([4, 3], [4, 16]), B, C, undefined, false], // A transposed: other strides
      [A, lay([3, 5], [40, 8]), C, undefined, false], // B a strided view
      [lay([4, 3], [24, 8], f64), B, C, undefined, false], // A float64
      [A, B, null, undefined, false], // no out
      [A, B, lay([4, 5], [4, 16]), undefined, false], // a transposed out
      [A, B, lay([4, 5], [40, 8], f64), undefined, false], // a float64 out
      [A, B, lay([1, 4, 5], [80, 20, 4]), undefined, false], // out of another shape
      [A, B, C, 'tf32', false],
      [A, B, C, 'exact', false],
      [A, B, C, undefined, true],
      [lay([2, 4, 3], [48, 12, 4]), B, C, undefined, false], // a batch dim
    ];
    keys.forEach((k, i) => m.set(...k, `plan ${i}`));
    keys.forEach((k, i) => expect(m.get(...k)).toBe(`plan ${i}`));
    expect(m.size).toBe(keys.length);
  });

  test('bounded: the least recently used plan goes first; a hit counts as a use', () => {
    const m = new PlanMemo<number>(4);
    const key = (i: number): [ArrayLayout, ArrayLayout, null, undefined, boolean] => [lay([i + 1, 3], [12, 4]), B, null, undefined, false];
    for (let i = 0; i < 4; i++) m.set(...key(i), i);
    expect(m.get(...key(0))).toBe(0); // 0 is now the most recent: 1 is the oldest
    m.set(...key(4), 4);
    expect(m.size).toBe(4);
    expect(m.get(...key(1))).toBeUndefined();
    expect([0, 2, 3, 4].map((i) => m.get(...key(i)))).toEqual([0, 2, 3, 4]);
    for (let i = 5; i < 100; i++) m.set(...key(i), i);
    expect(m.size).toBe(4);
    m.clear();
    expect(m.size).toBe(0);
    expect(m.get(...key(99))).toBeUndefined();
  });

  test('keys are copies of shape, strides and dtype, not the arrays: later changes do not reach them', () => {
    const m = new PlanMemo<string>();
    const shape = [4, 3], strides = [12, 4];
    m.set(lay(shape, strides), B, null, undefined, false, 'p');
    shape[0] = 8;
    strides[0] = 24;
    expect(m.get(lay([8, 3], [24, 4]), B, null, undefined, false)).toBeUndefined();
    expect(m.get(lay([4, 3], [12, 4]), B, null, undefined, false)).toBe('p');
    // An object that answers differently later (as if the memo held it rather than its layout).
    let now: ArrayLayout = A;
    const live: ArrayLayout = {
      get shape() { return now.shape; }, get strides() { return now.strides; }, get dtype() { return now.dtype; },
    };
    m.set(B, B, live, undefined, false, 'q');
    now = C;
    expect(m.get(B, B, C, undefined, false)).toBeUndefined();
    expect(m.get(B, B, A, undefined, false)).toBe('q');
  });
});

describe('cuBLAS loading (no GPU needed)', () => {
  test('linalg.cublasStatus() finds libcublas or says what to install', () => {
    const st = linalg.cublasStatus();
    if (st.found) {
      expect(st.path).toMatch(/libcublas\.so/);
      expect(st.version).toMatch(/^\d+\.\d+\.\d+$/);
      expect(st.message).toBe('');
    } else {
      expect(st.message).toContain('NODECUDA_CUBLAS');
      expect(st.version).toBeNull();
    }
  });

  test('the addon checks cublasGemm\'s parameters before loading cuBLAS: a Float64Array of 14, in range', () => {
    const ok = [0, 0, 16, 16, 16, 16, 0, 16, 0, 16, 256, 1, 0, 68];
    const call = (p: unknown): void => (native.cublasGemm as (...a: unknown[]) => void)(null, p, 1n, 2n, 3n);
    for (const p of [null, 5, ok, Float32Array.from(ok), Float64Array.from(ok.slice(0, 13)), new DataView(new ArrayBuffer(112))]) {
      const e = expectCode(() => call(p), TypeError, 'ERR_INVALID_ARG_TYPE');
      expect(e.message).toBe('cublasGemm parameters must be a Float64Array(14)');
    }
    // A view at an offset is read from its own first element.
    const at = new Float64Array(new ArrayBuffer(8 * 20), 8, 14);
    at.set(ok);
    at[2] = 0;
    expect(expectCode(() => call(at), RangeError, 'ERR_OUT_OF_RANGE').message).toBe('cublasGemm: m out of range');
  });

  test('CublasError carries code, status and call', () => {
    const e = new CublasError('x', { code: 'CUBLAS_STATUS_INVALID_VALUE', status: 7, call: 'cublasGemmStridedBatchedEx' });
    expect(e).toBeInstanceOf(Error);
    expect([e.name, e.code, e.status, e.call]).toEqual(['CublasError', 'CUBLAS_STATUS_INVALID_VALUE', 7, 'cublasGemmStridedBatchedEx']);
  });

  test('NODECUDA_CUBLAS=/nonexistent: status not found, a GEMM throws CublasError CUBLAS_NOT_FOUND naming the path', () => {
    const script = `
      const cuda = require(${JSON.stringify(DIST)});
      const blas = require(${JSON.stringify(path.join(DIST, 'cuda', 'cublas.js'))});
      const out = { status: cuda.linalg.cublasStatus() };
      const g = { transa: 0, transb: 0, m: 1, n: 1, k: 1, lda: 1, strideA: 0, ldb: 1, strideB: 0, ldc: 1, strideC: 1, batch: 1 };
      try { blas.gemm(null, blas.gemmCall(g, 0, 68), 0n, 0n, 0n); out.threw = false; } catch (e) {
        out.error = { name: e.name, code: e.code, status: e.status, call: e.call, message: e.message, isCublas: e instanceof cuda.CublasError };
      }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, NODECUDA_CUBLAS: '/nonexistent/libcublas.so' }, encoding: 'utf8', timeout: 60000,
    });
    expect(r.stderr).toBe('');
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!);
    expect(out.status).toMatchObject({ found: false, path: '', version: null });
    expect(out.status.message).toContain('/nonexistent/libcublas.so');
    expect(out.error).toMatchObject({ name: 'CublasError', code: 'CUBLAS_NOT_FOUND', status: -1, isCublas: true });
    expect(out.error.message).toContain('NODECUDA_CUBLAS');
    expect(out.error.message).toContain('/nonexistent/libcublas.so');
  });
});
