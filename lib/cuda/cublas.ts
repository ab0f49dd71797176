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

/** One cublasGemmStridedBatchedEx call (alpha 1, beta 0), column-major terms. */
export interface GemmCall {
  transa: number; transb: number; m: number; n: number; k: number;
  lda: number; strideA: number; ldb: number; strideB: number; ldc: number; strideC: number; batch: number;
  /** cudaDataType of A, B and C. */
  dataType: number;
  /** cublasComputeType_t. */
  computeType: number;
}

const params = new Float64Array(14);

/**
 * @internal C = op(A)·op(B) for `batch` matrices on `stream` (the launch queue is drained first).
 * CublasError on a cuBLAS failure (`CUBLAS_NOT_FOUND` when libcublas is missing).
 */
export function gemm(stream: NativeAddon.StreamHandle | null, g: GemmCall, a: bigint, b: bigint, c: bigint): void {
  params[0] = g.transa; params[1] = g.transb; params[2] = g.m; params[3] = g.n; params[4] = g.k;
  params[5] = g.lda; params[6] = g.strideA; params[7] = g.ldb; params[8] = g.strideB;
  params[9] = g.ldc; params[10] = g.strideC; params[11] = g.batch; params[12] = g.dataType;
  params[13] = g.computeType;
  native.cublasGemm(stream, params, a, b, c);
}
