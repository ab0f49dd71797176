/**
 * GEMM planning for matmul and friends, without the GPU: NumPy's matmul shape rules (1-D operands
 * promoted and their axis removed, batch dimensions broadcast), the cuBLAS types of each dtype, and
 * how a row-major (strided) operand is handed to column-major cuBLAS without a copy.
 *
 * The row-major trick: C = A·B in row-major order is Cᵀ = Bᵀ·Aᵀ in column-major order, and the
 * buffer of a row-major matrix read column-major is its transpose. So cuBLAS computes
 * (m, n, k) = (N, M, K) with B's buffer first and A's second. A matrix view passes without a copy
 * when one of its two strides is one element and the other (the leading dimension) is at least the
 * length of that axis: row-major-like → op N, column-major-like (a transposed view) → op T. Batch
 * dimensions must collapse to one stride per operand (0 for a broadcast operand).
 */
import { DType, DTypeName } from '../base/dtype';
import { describe, rangeError, typeError } from '../base/errors';
import { broadcastShapes, formatShape, sizeOf } from '../base/shape';
import type { GemmShape } from '../cuda/cublas';

/** cuBLAS's cudaDataType and cublasComputeType_t values for one dtype. */
export interface GemmType {
  /** cudaDataType of A, B and C (library_types.h). */
  readonly data: number;
  /** cublasComputeType_t by default (exact: float32 accumulates in float32 without TF32). */
  readonly compute: number;
  /** cublasComputeType_t with `{ precision: 'tf32' }`. */
  readonly tf32: number;
}

const COMPUTE_32F = 68, COMPUTE_32F_FAST_TF32 = 77, COMPUTE_64F = 70;

/**
 * The dtypes matmul runs on cuBLAS, one row each (float16 and bfloat16 accumulate in float32, like
 * NumPy's matmul of float16 on CPUs and torch).
 */
export const GEMM_TYPES: Readonly<Partial<Record<DTypeName, GemmType>>> = Object.freeze({
  float16: { data: 2, compute: COMPUTE_32F, tf32: COMPUTE_32F },
  bfloat16: { data: 14, compute: COMPUTE_32F, tf32: COMPUTE_32F },
  float32: { data: 0, compute: COMPUTE_32F, tf32: COMPUTE_32F_FAST_TF32 },
  float64: { data: 1, compute: COMPUTE_64F, tf32: COMPUTE_64F },
  complex64: { data: 4, compute: COMPUTE_32F, tf32: COMPUTE_32F_FAST_TF32 },
  complex128: { data: 5, compute: COMPUTE_64F, tf32: COMPUTE_64F },
});

/** cublasOperation_t. */
export const OP_N = 0, OP_T = 1, OP_C = 2;

/** Precision of float32 (and complex64) products. */
export type Precision = 'exact' | 'tf32';

/** The cuBLAS types of `dt`: TypeError `ERR_INVALID_DTYPE` for dtypes cuBLAS does not multiply. */
export function gemmType(dt: DType, what: string): GemmType {
  const t = GEMM_TYPES[dt.name];
  if (!t) {
    throw typeError('ERR_INVALID_DTYPE', `${what}: ${dt.name} operands are not supported (cuBLAS multiplies ` +
      `${Object.keys(GEMM_TYPES).join(', ')}); convert them first, e.g. a.astype('float64')`);
  }
  return t;
}

/** The `precision` option: 'exact', 'tf32' or undefined (exact); TypeError ERR_INVALID_ARG_VALUE for other values. */
export function checkPrecision(precision: unknown, what: string): Precision | undefined {
  if (precision === undefined || precision === 'exact' || precision === 'tf32') return precision;
  throw typeError('ERR_INVALID_ARG_VALUE', `${what}: precision must be 'exact' or 'tf32'. Received ${describe(precision)}`);
}

/** The compute type for `precision` (undefined: exact). TypeError for other values (checkPrecision). */
export function computeType(t: GemmType, precision: unknown, what: string): number {
  return checkPrecision(precision, what) === 'tf32' ? t.tf32 : t.compute;
}

/** The shapes of a matmul: batch dims (broadcast), M, N, K and the result's shape. */
export interface MatmulShape {
  batch: number[];
  m: number;
  n: number;
  k: number;
  out: number[];
}

/**
 * NumPy's matmul shape rules: a 1-D `a` is a row (1, K) and a 1-D `b` a column (K, 1), each
 * removed from the result; other dimensions before the last two broadcast. RangeError
 * `ERR_SHAPE_MISMATCH` naming both shapes when K differs or the batches do not broadcast;
 * TypeError `ERR_INVALID_ARG_VALUE` for 0-d operands (NumPy: use multiply).
 * @example
 * matmulShape([5, 2, 3], [3, 4]).out // [5, 2, 4]
 */
export function matmulShape(a: readonly number[], b: readonly number[], what = 'matmul'): MatmulShape {
  if (a.length === 0 || b.length === 0) {
    throw typeError('ERR_INVALID_ARG_VALUE', `${what}: operands must have at least one dimension (a 0-d operand is a ` +
      'scalar: use mul)');
  }
  const [m, ka] = a.length === 1 ? [1, a[0]] : [a[a.length - 2], a[a.length - 1]];
  const [kb, n] = b.length === 1 ? [b[0], 1] : [b[b.length - 2], b[b.length - 1]];
  const fail = (why: string): RangeError => rangeError('ERR_SHAPE_MISMATCH',
    `${what}: shapes ${formatShape(a)} and ${formatShape(b)} ${why}`);
  if (ka !== kb) throw fail(`are not aligned: ${ka} (dim ${a.length - 1}) != ${kb} (dim ${Math.max(0, b.length - 2)})`);
  let batch: number[];
  try {
    batch = broadcastShapes(a.slice(0, -2), b.slice(0, -2));
  } catch {
    throw fail('have batch dimensions that do not broadcast');
  }
  const out = [...batch, ...(a.length > 1 ? [m] : []), ...(b.length > 1 ? [n] : [])];
  return { batch, m, n, k: ka, out };
}

/** How one matrix operand reaches cuBLAS. */
export interface MatrixLayout {
  /** True: row-major-like (its buffer read column-major is its transpose); false: column-major-like. */
  rowMajor: boolean;
  /** Leading dimension in elements. */
  ld: number;
}

/**
 * The layout of an R×C matrix with element strides (sr, sc), or null when cuBLAS cannot take it
 * (no unit stride, a negative or too small leading dimension: copy it first). `forceColumn` asks
 * for the column-major form only (conjugated operands, op C).
 * @example
 * matrixLayout(3, 4, 4, 1) // { rowMajor: true, ld: 4 }; its transpose: matrixLayout(4, 3, 1, 4) // { rowMajor: false, ld: 4 }
 */
export function matrixLayout(r: number, c: number, sr: number, sc: number, forceColumn = false): MatrixLayout | null {
  if (!forceColumn && (c <= 1 || sc === 1)) {
    const ld = r <= 1 ? Math.max(1, c) : sr;
    if (ld >= Math.max(1, c) && Number.isInteger(ld)) return { rowMajor: true, ld };
  }
  if (r <= 1 || sr === 1) {
    const ld = c <= 1 ? Math.max(1, r) : sc;
    if (ld >= Math.max(1, r) && Number.isInteger(ld)) return { rowMajor: false, ld };
  }
  return null;
}

/**
 * One stride (in elements) that walks the batch dimensions `shape` of an operand with `strides`
 * (broadcast dims have stride 0) in C order, or null when they do not collapse to one.
 * @example
 * batchStride([2, 3], [12, 4]) // 4; batchStride([2, 3], [0, 0]) // 0; batchStride([2, 3], [0, 4]) // null
 */
export function batchStride(shape: readonly number[], strides: readonly number[]): number | null {
  let stride: number | null = null; // of the flattened batch, from the innermost dim longer than 1
  let span = 1;
  for (let d = shape.length - 1; d >= 0; d--) {
    if (shape[d] === 1) continue;
    if (stride === null) stride = strides[d];
    else if (strides[d] !== stride * span) return null;
    span *= shape[d];
  }
  if (stride !== null && stride < 0) return null;
  return stride ?? 0;
}

/** An operand as the planner sees it: shape and element (not byte) strides. */
export interface OperandLayout {
  shape: readonly number[];
  strides: readonly number[];
}

/** One operand's part of a GEMM call, or null when it must be copied to C order first. */
export interface OperandPlan {
  layout: MatrixLayout;
  /** Batch stride in elements. */
  stride: number;
}

/**
 * How operand `x` (of a matmul with shape `s`) is passed: its matrix layout and batch stride.
 * `isA`: the left operand (a 1-D left operand is a row, a right one a column).
 */
export function operandPlan(x: OperandLayout, s: MatmulShape, isA: boolean, conj = false): OperandPlan | null {
  const nd = x.shape.length;
  let r: number, c: number, sr: number, sc: number;
  if (nd === 1) {
    [r, c] = isA ? [1, x.shape[0]] : [x.shape[0], 1];
    [sr, sc] = isA ? [0, x.strides[0]] : [x.strides[0], 0];
  } else {
    [r, c, sr, sc] = [x.shape[nd - 2], x.shape[nd - 1], x.strides[nd - 2], x.strides[nd - 1]];
  }
  const layout = matrixLayout(r, c, sr, sc, conj);
  if (!layout) return null;
  if (nd <= 2) return { layout, stride: 0 };
  // The operand's batch dims, broadcast to the matmul's.
  const own = x.shape.slice(0, -2), ownStrides = x.strides.slice(0, -2);
  const off = s.batch.length - own.length;
  const strides = s.batch.map((n, i) => (i < off || own[i - off] !== n ? 0 : ownStrides[i - off]));
  const stride = batchStride(s.batch, strides);
  return stride === null ? null : { layout, stride };
}

/** The cublasGemm parameters (lib/cuda/cublas.ts) for C (batch, M, N), C-contiguous. */
export type GemmParams = GemmShape;

const INT_MAX = 2 ** 31 - 1;

/**
 * The cuBLAS call for C = A·B (row-major, C-contiguous C) given the two operand plans: Cᵀ = Bᵀ·Aᵀ
 * in column-major terms, so cuBLAS's first operand is B. `conjA`: A is conjugated (op C; its
 * plan must be column-major-like). RangeError `ERR_OUT_OF_RANGE` for sizes beyond cuBLAS's int.
 */
export function gemmParams(s: MatmulShape, a: OperandPlan, b: OperandPlan, conjA = false): GemmParams {
  const batch = sizeOf(s.batch);
  for (const [name, v] of [['M', s.m], ['N', s.n], ['K', s.k], ['batch', batch], ['lda', a.layout.ld], ['ldb', b.layout.ld]] as const) {
    if (v > INT_MAX) throw rangeError('ERR_OUT_OF_RANGE', `matmul: ${name} = ${v} exceeds cuBLAS's limit of 2^31-1`);
  }
  return {
    transa: b.layout.rowMajor ? OP_N : OP_T,
    transb: a.layout.rowMajor ? OP_N : conjA ? OP_C : OP_T,
    m: s.n, n: s.m, k: s.k,
    lda: b.layout.ld, strideA: batch > 1 ? b.stride : 0,
    ldb: a.layout.ld, strideB: batch > 1 ? a.stride : 0,
    ldc: Math.max(1, s.n), strideC: s.m * s.n, batch,
  };
}
