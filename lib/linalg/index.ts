/**
 * Linear algebra (lib/linalg): matmul and NumPy's dot/inner/outer/vdot on cuBLAS, linalg.norm on
 * the reductions, and `a.matmul(b)` on GPUArray. docs/linalg.md is the user's page.
 */
import { registerArrayMethods } from '../array/methods';
import { matmul } from './matmul';

export { matmul } from './matmul';
export type { MatmulOptions } from './matmul';
export { dot, inner, outer, vdot } from './products';
export { norm } from './norm';
export type { NormOptions, NormOrder } from './norm';
export { cublasStatus } from '../cuda/cublas';
export type { CublasStatus } from '../cuda/cublas';
export { GEMM_TYPES } from './plan';
export type { Precision } from './plan';

registerArrayMethods({ matmul });
