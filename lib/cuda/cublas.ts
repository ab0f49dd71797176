/**
 * cuBLAS through the addon (src/cublas.cc): library status and the strided batched GEMM that
 * lib/linalg plans. Hands the CublasError class to native when loaded, so cuBLAS failures (and
 * `CUBLAS_NOT_FOUND`) are CublasError instances in every environment (worker_threads too).
 */
import { CublasError } from '../base/errors';
import { native } from './native';

native.cublasInit(CublasError);

/** Where libcublas was found and its version, or why it could not be used. */
export interface CublasStatus {
  /** Whether a libcublas with every entry point nodecuda uses was opened. */
  found: boolean;
  /** The file opened ('' when not found). */
  path: string;
  /** e.g. '13.1.0'; null when not found. */
  version: string | null;
  /** What to install, when not found. */
  message: string;
}

/**
 * Opens libcublas (once per process; needs no GPU) and says where it is or why not.
 * @example
 * linalg.cublasStatus(); // { found: true, path: '/usr/local/cuda/lib64/libcublas.so.13', version: '13.1.0', message: '' }
 */
export function cublasStatus(): CublasStatus {
  return native.cublasStatus();
}

/** The shape of one cublasGemmStridedBatchedEx call (alpha 1, beta 0), column-major terms. */
export interface GemmShape {
  transa: number; transb: number; m: number; n: number; k: number;
  lda: number; strideA: number; ldb: number; strideB: number; ldc: number; strideC: number; batch: number;
}

/**
 * @internal The parameters of one call as the addon takes them (a Float64Array(14): the shape's
 * fields in order, then the cudaDataType of A, B and C, then the cublasComputeType_t). Made once
 * per plan and reused: lib/linalg memoizes plans, so a repeated product packs nothing.
 */
export function gemmCall(g: GemmShape, dataType: number, computeType: number): Float64Array {
  return Float64Array.of(g.transa, g.transb, g.m, g.n, g.k, g.lda, g.strideA, g.ldb, g.strideB, g.ldc, g.strideC, g.batch,
    dataType, computeType);
}

/**
 * @internal C = op(A)·op(B) for `batch` matrices on `stream` (the launch queue is drained first),
 * `call` from gemmCall. CublasError on a cuBLAS failure (`CUBLAS_NOT_FOUND` when libcublas is missing).
 */
export function gemm(stream: NativeAddon.StreamHandle | null, call: Float64Array, a: bigint, b: bigint, c: bigint): void {
  native.cublasGemm(stream, call, a, b, c);
}

// cudaDataType of the dtypes cublasDotEx takes (result and execution in the same type).
const DOT_TYPES: Readonly<Record<string, number>> = { float32: 0, float64: 1, complex64: 4, complex128: 5 };
let dotAvailable: boolean | undefined;

/**
 * @internal The cudaDataType cuBLAS's dot takes for `dtypeName`, or null: another dtype, libcublas
 * not found, or NODECUDA_DOT_CUBLAS=0 (read per call).
 */
export function blasDotType(dtypeName: string): number | null {
  const t = DOT_TYPES[dtypeName];
  if (t === undefined || process.env.NODECUDA_DOT_CUBLAS === '0') return null;
  dotAvailable ??= cublasStatus().found;
  return dotAvailable ? t : null;
}

/**
 * @internal result[0] = Σ x[i·incx]·y[i·incy] for i < n (no conjugation), on `stream`, written on
 * the device (cublasDotEx). CublasError on a cuBLAS failure.
 */
export function blasDot(stream: NativeAddon.StreamHandle | null, type: number, n: number, x: bigint, incx: number,
  y: bigint, incy: number, result: bigint): void {
  native.cublasDot(stream, type, n, x, incx, y, incy, result);
}
