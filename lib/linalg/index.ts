/**
 * Linear algebra (lib/linalg): matmul and NumPy's dot/inner/outer/vdot on cuBLAS, linalg.norm on
 * the reductions, and `a.matmul(b)` on GPUArray. docs/linalg.md is the user's page.
 */
import { GPUArray } from '../array/gpuarray';
import { MatmulOptions, matmul } from './matmul';

export { matmul } from './matmul';
export type { MatmulOptions } from './matmul';
export { dot, inner, outer, vdot } from './products';
export { norm } from './norm';
export type { NormOptions, NormOrder } from './norm';
export { cublasStatus } from '../cuda/cublas';
export type { CublasStatus } from '../cuda/cublas';
export { GEMM_TYPES } from './plan';
export type { Precision } from './plan';

declare module '../array/gpuarray' {
  interface GPUArray {
    /**
     * Matrix product with `b` (gpuarray.matmul: NumPy's `a @ b`, on cuBLAS).
     * @example
     * const y = x.matmul(w);
     */
    matmul(b: GPUArray, opts?: MatmulOptions): GPUArray;
  }
}

(GPUArray.prototype as unknown as Record<string, unknown>).matmul = function (this: GPUArray, b: GPUArray, opts?: MatmulOptions) {
  return matmul(this, b, opts);
};
