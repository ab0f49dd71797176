// ES module entry point of nodecuda, copied to dist/index.mjs by "npm run build:ts" (package.json
// "exports" → import): the CommonJS build in dist/index.js, re-exported by name. Keep this list
// equal to index.js's exports (test/15 checks it). Not named lib/index.mjs: Jest would resolve
// '../lib' to it.
import cuda from './index.js';

export const {
  CudaError, NvrtcError, NcclError, CublasError, DTYPES, Scalar, dtype, bool, int8, uint8, int16, uint16, int32, uint32,
  int64, uint64, float16, bfloat16, float32, float64, complex64, complex128, floatToHalfBits,
  halfBitsToFloat, floatToBf16Bits, bf16BitsToFloat, SourceModule, Module, ElementwiseKernel, GenericElementwiseKernel, isAvailable,
  ReductionKernel, InclusiveScanKernel, ExclusiveScanKernel, GenericScanKernel, GPUArray, tidy,
  slice, newaxis, ellipsis, Slice, resultType, promoteTypes, canCast, gpuarray, random, cumath,
  driver, compiler, version, memory, freeCachedMemory, gl, nccl, withDevice, linalg, availability, diagnose, formatDiagnosis, keep,
} = cuda;
export const { CufftError, fft } = cuda;

export default cuda;
