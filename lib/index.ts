// Symbol.dispose (Node >= 20.4 has it) for consumers compiling with lib es2022: their program
// gets lib.esnext.disposable's declarations of it, as with @types/node, and nothing else.
/// <reference lib="esnext.disposable" preserve="true" />
/**
 * nodecuda: PyCUDA for Node.js.
 * @example
 * import * as cuda from 'nodecuda';
 * const mod = new cuda.SourceModule('__global__ void twice(float *a) { a[threadIdx.x] *= 2; }');
 * const a = new Float32Array(32).fill(1);
 * mod.getFunction('twice')(cuda.driver.InOut(a), { block: [32] });
 */
// First: nodecuda's modules below load with V8's code cache (cuda/code_cache.ts).
import './cuda/code_cache';
import * as compilerNs from './cuda/compiler';
import * as modulesNs from './cuda/modules';
import * as driverCore from './cuda/driver';
import { cudaVersionString } from './cuda/driver';
import * as launchNs from './cuda/launch';
import * as memoryNs from './cuda/memory';
import * as creation from './array/creation';
import * as ops from './array/operators';
import * as joins from './array/joins';
import * as cumathNs from './array/cumath';
import * as complexNs from './array/complex'; // a.real, a.imag, a.conj()
import * as red from './array/reductions';
import * as scans from './array/scan';
import * as sorting from './array/sorting';
import * as selection from './array/selection';
import * as quantiles from './array/quantile';
import * as nonzeros from './array/nonzero';
import * as histograms from './array/histogram';
import * as shapes from './array/shapes';
import * as clips from './array/clip';
import * as matrices from './array/matrices';
import * as padding from './array/pad';
import * as shapesMore from './array/shapes_more';
import './array/devices'; // a.device, a.to(), a.copyTo(), device-following host transfers
import * as randomNs from './random/random';
import { GPUArray } from './array/gpuarray';
import * as cu from './cuda/door';
import * as curandomNs from './random/curandom';
import * as arrays from './cuda/cuda_array';
import * as textures from './cuda/texture';
import * as linalgNs from './linalg';

export { CudaError, NvrtcError, NcclError, CublasError, CufftError } from './base/errors';
export type { CudaErrorInfo, NvrtcErrorInfo, NcclErrorInfo, CublasErrorInfo } from './base/errors';
export { fft } from './fft';
export type { FftNorm, FftOptions, FftNOptions, FftTransform, FftTransformN, FreqOptions, ShiftOptions } from './fft';
export {
  DTYPES, Scalar, dtype, bool, int8, uint8, int16, uint16, int32, uint32, int64, uint64, float16,
  bfloat16, float32, float64, complex64, complex128, floatToHalfBits, halfBitsToFloat, floatToBf16Bits, bf16BitsToFloat,
} from './base/dtype';
export type { DType, DTypeName, DTypeLike, Complex, ScalarFactory } from './base/dtype';
export { SourceModule, Module } from './cuda/modules';
export { ElementwiseKernel } from './kernels/elementwise';
export { GenericElementwiseKernel } from './kernels/generic';
export type { ElementwiseKernelOptions, ElementwiseCallOptions, RangeLike } from './kernels/elementwise';
export type { GenericKernelOptions, GenericCallOptions } from './kernels/generic';
export type { CompileOptions, CompileResult } from './cuda/compiler';
export type { SourceModuleOptions } from './cuda/modules';
export type { CudaFunction, LaunchOptions, ParamType } from './cuda/launch';
export { isAvailable, withDevice, availability } from './cuda/driver';
export type { Availability } from './cuda/driver';
export type { DeviceId, ToOptions, DeviceMismatchError } from './array/devices';
export type { PlaceOptions } from './array/creation';
export { diagnose, formatDiagnosis } from './doctor/diagnose';
export type { Diagnosis, DeviceDiagnosis, FeatureDiagnosis, PartDiagnosis } from './doctor/diagnose';
export { ReductionKernel } from './kernels/reduction';
export type { ReductionKernelOptions, ReductionCallOptions, ReductionCallable } from './kernels/reduction';
export { InclusiveScanKernel, ExclusiveScanKernel, GenericScanKernel } from './kernels/scan';
export type { ScanKernel, GenericScanOptions, GenericScanCallable } from './kernels/scan';
export type { ScanOptions } from './array/scan';
export type { SortOptions, ArgsortOptions, UniqueOptions, UniqueResult } from './array/sorting';
export type { SearchsortedOptions, TopkOptions, TopkResult, PartitionOptions } from './array/selection';
export type { MedianOptions, QuantileOptions, QuantileMethod } from './array/quantile';
export type { NonzeroOptions, CountNonzeroOptions, CompressOptions } from './array/nonzero';
export type {
  BincountOptions, HistogramOptions, HistogramBinEdgesOptions, HistogramResult, HistogramBins, DigitizeOptions,
} from './array/histogram';
export type {
  FlipOptions, RollOptions, RepeatOptions, ArraySplitOptions, ShapeStreamOptions,
} from './array/shapes';
export type { ClipBound, IscloseOptions, IscloseOutOptions } from './array/clip';
export type {
  EyeOptions, IdentityOptions, DiagonalOptions, TraceOptions, MatrixStreamOptions, MeshgridOptions, DiffOptions, PtpOptions,
} from './array/matrices';
export type { PadMode, PadWidth, PadScalar, PadConstant, PadOptions } from './array/pad';
export type { StackOptions, AverageOptions, LogspaceOptions, GeomspaceOptions } from './array/shapes_more';
export type { ReduceOptions, VarOptions, ArgOptions, DotOptions } from './array/reductions';
export { GPUArray } from './array/gpuarray';
export { tidy, keep } from './array/tidy';
export type { TransferOptions } from './array/gpuarray';
export type { AbortOptions, AbortSignalLike } from './base/abort';
export { slice, newaxis, ellipsis, Slice } from './base/indexing';
export type { IndexItem } from './base/indexing';
export type { Operand, OpOptions } from './array/operators';
export type { CreateOptions, CreateAsyncOptions } from './array/creation';
export { resultType, promoteTypes, canCast } from './base/promote';
// Types the public API refers to (for TypeScript users and the typedoc reference; no runtime names).
export type { Device, Context, Stream, Event } from './cuda/driver';
export type { DeviceAllocation, AnyTypedArray, DeviceLike, DeviceView, HostBufferLike } from './cuda/memory';
export type { Generator } from './random/random';
export type {
  XORWOWRandomNumberGenerator, MRG32k3aRandomNumberGenerator, Sobol32RandomNumberGenerator, ScrambledSobol32RandomNumberGenerator,
} from './random/curandom';
export type { TypedArrayConstructor } from './base/dtype';
export type { Unary as CumathUnary, Binary as CumathBinary } from './array/cumath';
export type { ElementwiseSpec, InputSpec, OutputSpec } from './engine/templates/elementwise';
export type { Element, NestedArray } from './base/host';
export type { Casting, Operand as PromoteOperand } from './base/promote';
export type { LoopMode } from './engine/templates/elementwise_kernel';
export type { HostArg } from './cuda/launch';

/**
 * pycuda.gpuarray: creating arrays and the operators as functions.
 * @namespace
 */
export const gpuarray = Object.freeze({
  /** The {@link GPUArray} class: an n-dimensional array in device memory. */
  GPUArray,
  toGpu: creation.toGpu,
  toGpuAsync: creation.toGpuAsync,
  empty: creation.empty,
  zeros: creation.zeros,
  ones: creation.ones,
  full: creation.full,
  arange: creation.arange,
  linspace: creation.linspace,
  emptyLike: creation.emptyLike,
  zerosLike: creation.zerosLike,
  onesLike: creation.onesLike,
  ...ops.binaryFunctions,
  ...ops.unaryFunctions,
  /** Elementwise maximum ignoring NaN (NumPy fmax; the same as cumath.fmax). */
  fmax: cumathNs.cumathFunctions.fmax,
  /** Elementwise minimum ignoring NaN (NumPy fmin; the same as cumath.fmin). */
  fmin: cumathNs.cumathFunctions.fmin,
  /** The real parts of a complex array as a view (NumPy real); any other array itself. */
  real: complexNs.real,
  /** The imaginary parts of a complex array as a view (NumPy imag); zeros (a new array) for any other array. */
  imag: complexNs.imag,
  concatenate: joins.concatenate,
  stack: joins.stack,
  take: joins.take,
  put: joins.put,
  where: ops.where,
  ifPositive: ops.ifPositive,
  apply: ops.apply,
  /** Sum over `axis` (all axes by default): a 0-d GPUArray unless `axis` is given. */
  sum: red.sum,
  /** Product over `axis` (all axes by default). */
  prod: red.prod,
  /** Minimum over `axis` (NaN propagates). */
  min: red.min,
  /** Maximum over `axis` (NaN propagates). */
  max: red.max,
  /** Arithmetic mean over `axis`. */
  mean: red.mean,
  /** Variance over `axis` (`ddof` as NumPy). */
  var: red.var_,
  /** Standard deviation over `axis` (`ddof` as NumPy). */
  std: red.std,
  /** Whether any element over `axis` is nonzero (bool). */
  any: red.any,
  /** Whether every element over `axis` is nonzero (bool). */
  all: red.all,
  /** Sum over `axis` with NaN counted as 0 (NumPy nansum). */
  nansum: red.nansum,
  /** Product over `axis` with NaN counted as 1. */
  nanprod: red.nanprod,
  /** Minimum over `axis` ignoring NaN (NaN where a slice is all NaN). */
  nanmin: red.nanmin,
  /** Maximum over `axis` ignoring NaN (NaN where a slice is all NaN). */
  nanmax: red.nanmax,
  /** Mean of the non-NaN elements over `axis` (NaN where there are none). */
  nanmean: red.nanmean,
  /** Variance of the non-NaN elements over `axis` (`ddof`; NaN where count − ddof ≤ 0). */
  nanvar: red.nanvar,
  /** Standard deviation of the non-NaN elements over `axis`. */
  nanstd: red.nanstd,
  /** Index (int64) of the minimum (first on ties) over `axis` or the flattened array. */
  argmin: red.argmin,
  /** Index (int64) of the maximum (first on ties) over `axis` or the flattened array. */
  argmax: red.argmax,
  /** Index (int64) of the minimum ignoring NaN (first on ties); -1 where a slice is all NaN (NumPy raises). */
  nanargmin: red.nanargmin,
  /** Index (int64) of the maximum ignoring NaN (first on ties); -1 where a slice is all NaN (NumPy raises). */
  nanargmax: red.nanargmax,
  dot: red.dot,
  subsetSum: red.subsetSum,
  subsetDot: red.subsetDot,
  subsetMin: red.subsetMin,
  subsetMax: red.subsetMax,
  /** Cumulative sum (NumPy): flattened without `axis`; ints accumulate in 64 bits. */
  cumsum: scans.cumsum,
  /** Cumulative product (flattened, or along `axis`). */
  cumprod: scans.cumprod,
  /** Cumulative sum with NaN counted as 0 (NumPy nancumsum). */
  nancumsum: scans.nancumsum,
  /** Cumulative product with NaN counted as 1. */
  nancumprod: scans.nancumprod,
  /** A sorted copy (stable radix sort; NaNs last) along `axis` or the flattened array. */
  sort: sorting.sort,
  /** The int64 indices that sort an array along `axis` (stable). */
  argsort: sorting.argsort,
  /** The sorted unique elements, optionally with first indices, inverse and counts. */
  unique: sorting.unique,
  /** Insertion points of values in a sorted 1-D array (binary search). */
  searchsorted: selection.searchsorted,
  /** How often each non-negative integer occurs in a 1-D array, or the sums of weights per value (NumPy bincount; reads the max back). */
  bincount: histograms.bincount,
  /** The histogram of the flattened array: `{ hist, binEdges }` (NumPy histogram; equal-width bins or given edges). */
  histogram: histograms.histogram,
  /** The bin edges histogram() would use (NumPy histogram_bin_edges). */
  histogramBinEdges: histograms.histogramBinEdges,
  /** The int64 index of the bin each element falls in, bins increasing or decreasing (NumPy digitize). */
  digitize: histograms.digitize,
  /** The k largest (or smallest) elements along `axis` and their int64 positions (torch.topk; a selection or a sort). */
  topk: selection.topk,
  /** A copy partitioned around each kth position along `axis` (NumPy; one kth of a long axis by selection, else a stable sort). */
  partition: selection.partition,
  /** The int64 indices that partition an array along `axis` (NumPy; by selection or argsort's). */
  argpartition: selection.argpartition,
  /** The median over `axis` (all axes by default; NumPy: the mean of the two middle elements of an even count). */
  median: quantiles.median,
  /** The median over `axis` with NaNs left out. */
  nanmedian: quantiles.nanmedian,
  /** The q-th quantiles over `axis`, q in [0, 1] (NumPy's methods; default 'linear'). */
  quantile: quantiles.quantile,
  /** The q-th quantiles with NaNs left out. */
  nanquantile: quantiles.nanquantile,
  /** The q-th percentiles over `axis`, q in [0, 100]. */
  percentile: quantiles.percentile,
  /** The q-th percentiles with NaNs left out. */
  nanpercentile: quantiles.nanpercentile,
  /** The int64 indices of the nonzero elements, one array per dimension (NumPy; reads the count back). */
  nonzero: nonzeros.nonzero,
  /** The int64 flat (C-order) indices of the nonzero elements. */
  flatnonzero: nonzeros.flatnonzero,
  /** The int64 coordinates of the nonzero elements, [count, ndim]. */
  argwhere: nonzeros.argwhere,
  /** The elements of `arr` where `condition` is nonzero (NumPy extract, `arr[mask]`). */
  extract: nonzeros.extract,
  /** The slices along `axis` (or elements of the flattened array) where a 1-D condition is nonzero (NumPy compress). */
  compress: nonzeros.compress,
  /** How many elements are nonzero, over `axis` (int64; nothing read back). */
  countNonzero: nonzeros.countNonzero,
  /** The elements reversed along `axis` (all axes by default), as a view with negative strides (NumPy flip). */
  flip: shapes.flip,
  /** The array reversed along axis 1, a view (NumPy fliplr; at least 2-d). */
  fliplr: shapes.fliplr,
  /** The array reversed along axis 0, a view (NumPy flipud; at least 1-d). */
  flipud: shapes.flipud,
  /** Two axes interchanged, a view (NumPy swapaxes). */
  swapaxes: shapes.swapaxes,
  /** Axes moved to new positions, the others keeping their order, a view (NumPy moveaxis). */
  moveaxis: shapes.moveaxis,
  /** A copy with elements shifted along `axis` (or the flattened array), wrapping around (NumPy roll). */
  roll: shapes.roll,
  /** The array repeated `reps` times along each axis (NumPy tile). */
  tile: shapes.tile,
  /** Each element repeated, by one count or a count per element along `axis` (NumPy repeat). */
  repeat: shapes.repeat,
  /** Views of equal sections along `axis`, or split at indices (NumPy split; unequal sections throw). */
  split: shapes.split,
  /** split() that allows unequal sections (NumPy array_split). */
  arraySplit: shapes.arraySplit,
  /** Arrays joined column-wise: 1-D ones along axis 0, others along axis 1 (NumPy hstack). */
  hstack: shapes.hstack,
  /** Arrays joined row-wise, 1-D ones as rows (NumPy vstack). */
  vstack: shapes.vstack,
  /** Elements limited to [min, max], bounds broadcast or scalar, either optional; NaN propagates (NumPy 2 clip). */
  clip: clips.clip,
  /** Elementwise |a − b| ≤ atol + rtol·|b| (or equal, or both NaN with equalNan) → bool (NumPy isclose). */
  isclose: clips.isclose,
  /** Whether isclose(a, b) holds everywhere, read back as a JS boolean (NumPy allclose). */
  allclose: clips.allclose,
  /** A 2-D array with ones on the k-th diagonal (NumPy eye; default float64). */
  eye: matrices.eye,
  /** The n×n identity matrix (default float64). */
  identity: matrices.identity,
  /** The diagonal over `axis1`, `axis2` as a view (no copy), moved to the last axis (NumPy diagonal). */
  diagonal: matrices.diagonal,
  /** 1-D: a square matrix with `v` on the k-th diagonal; 2-D: a copy of the k-th diagonal (NumPy diag). */
  diag: matrices.diag,
  /** The sum along the diagonal (NumPy trace; integers accumulate in 64 bits, as sum). */
  trace: matrices.trace,
  /** The lower triangle of the last two axes, zeros above the k-th diagonal (batched; dtype kept). */
  tril: matrices.tril,
  /** The upper triangle of the last two axes, zeros below the k-th diagonal (batched; dtype kept). */
  triu: matrices.triu,
  /** Coordinate grids from 1-D coordinate vectors (NumPy meshgrid: 'xy' or 'ij' indexing, sparse, copy). */
  meshgrid: matrices.meshgrid,
  /** The n-th discrete difference along `axis`, with optional prepend/append (NumPy diff; bool: not-equal). */
  diff: matrices.diff,
  /** Peak to peak, max − min over `axis` (NumPy ptp; the input's dtype). */
  ptp: matrices.ptp,
  /** The array padded on each side of each axis: 'constant', 'edge', 'reflect', 'symmetric' or 'wrap' (NumPy pad; one gather kernel). */
  pad: padding.pad,
  /** The array rotated by 90° k times in the plane of two axes, a view (NumPy rot90). */
  rot90: shapesMore.rot90,
  /** Arrays joined along a third axis, each made at least 3-d first (NumPy dstack). */
  dstack: shapesMore.dstack,
  /** 1-D arrays as the columns of a 2-D array, others joined on axis 1 (NumPy column_stack). */
  columnStack: shapesMore.columnStack,
  /** split() along axis 1 (axis 0 of a 1-D array), views (NumPy hsplit). */
  hsplit: shapesMore.hsplit,
  /** split() along axis 0 of an array of at least 2 dimensions, views (NumPy vsplit). */
  vsplit: shapesMore.vsplit,
  /** split() along axis 2 of an array of at least 3 dimensions, views (NumPy dsplit). */
  dsplit: shapesMore.dsplit,
  /** The arrays with at least 1 dimension (0-d as [1]), views (NumPy atleast_1d). */
  atleast1d: shapesMore.atleast1d,
  /** The arrays with at least 2 dimensions ([n] as [1, n]), views (NumPy atleast_2d). */
  atleast2d: shapesMore.atleast2d,
  /** The arrays with at least 3 dimensions ([n] as [1, n, 1], [m, n] as [m, n, 1]), views (NumPy atleast_3d). */
  atleast3d: shapesMore.atleast3d,
  /** A broadcast view of an array with the given shape (NumPy broadcast_to; also `a.broadcastTo`). */
  broadcastTo: shapesMore.broadcastTo,
  /** The arrays broadcast against each other, as views of one shape (NumPy broadcast_arrays). */
  broadcastArrays: shapesMore.broadcastArrays,
  /** The shape that shapes broadcast to (NumPy broadcast_shapes). */
  broadcastShapes: shapesMore.broadcastShapes,
  /** The weighted average over `axis`, optionally with the weights' sum (NumPy average; zero weight sums give NaN/Inf). */
  average: shapesMore.average,
  /** `num` powers base ** y, y evenly spaced from start to stop (NumPy logspace; computed in float64). */
  logspace: shapesMore.logspace,
  /** `num` values in geometric progression from start to stop, ends exact (NumPy geomspace). */
  geomspace: shapesMore.geomspace,
  matmul: linalgNs.matmul,
  inner: linalgNs.inner,
  outer: linalgNs.outer,
  vdot: linalgNs.vdot,
});

/**
 * Linear algebra on cuBLAS (numpy.linalg's names): matmul, NumPy's dot/inner/outer/vdot, norm.
 * @example
 * const c = linalg.matmul(a, b); const n = linalg.norm(v).item();
 */
export const linalg = Object.freeze({
  matmul: linalgNs.matmul,
  dot: linalgNs.dot,
  inner: linalgNs.inner,
  outer: linalgNs.outer,
  vdot: linalgNs.vdot,
  norm: linalgNs.norm,
  cublasStatus: linalgNs.cublasStatus,
});
export type { MatmulOptions, NormOptions, NormOrder, CublasStatus, Precision } from './linalg';

/**
 * pycuda.curandom: Philox (our kernels; rand, randn, seed, Generator) and cuRAND's generators.
 * @example
 * random.seed(42); const x = random.rand([1024]);
 * const g = new random.Generator({ seed: 7 }); const k = g.poisson([100], 4);
 * @namespace
 */
export const random = Object.freeze({
  rand: randomNs.rand,
  randn: randomNs.randn,
  seed: randomNs.seed,
  /** The {@link Generator} class: NumPy's Generator API over Philox (default), XORWOW or MRG32k3a. */
  Generator: randomNs.Generator,
  /** The {@link XORWOWRandomNumberGenerator} class: cuRAND's XORWOW generator (pycuda.curandom's). */
  XORWOWRandomNumberGenerator: curandomNs.XORWOWRandomNumberGenerator,
  /** The {@link MRG32k3aRandomNumberGenerator} class: cuRAND's MRG32k3a generator (pycuda.curandom's). */
  MRG32k3aRandomNumberGenerator: curandomNs.MRG32k3aRandomNumberGenerator,
  /** The {@link Sobol32RandomNumberGenerator} class: cuRAND's Sobol32 quasi-random generator. */
  Sobol32RandomNumberGenerator: curandomNs.Sobol32RandomNumberGenerator,
  /** The {@link ScrambledSobol32RandomNumberGenerator} class: cuRAND's scrambled Sobol32 quasi-random generator. */
  ScrambledSobol32RandomNumberGenerator: curandomNs.ScrambledSobol32RandomNumberGenerator,
  seedGetterUniform: curandomNs.seedGetterUniform,
  seedGetterUnique: curandomNs.seedGetterUnique,
  generateDirectionVectors32: curandomNs.generateDirectionVectors32,
  generateScrambleConstants32: curandomNs.generateScrambleConstants32,
});
export type { Algorithm as RandomAlgorithm, GeneratorOptions, RandomState, DrawOptions } from './random/random';

/**
 * pycuda.cumath: elementwise math functions (NumPy 2 types; `{ out, stream, fastMath }`).
 * @namespace
 */
export const cumath = Object.freeze({ ...cumathNs.cumathFunctions, apply: cumathNs.apply });
export type { MathOptions, SplitOptions, CumathFunctions, AngleOptions, NanToNumOptions } from './array/cumath';

/**
 * pycuda.driver: devices, contexts, memory, copies, streams, events, modules, launches.
 * @namespace
 */
export const driver = Object.freeze({
  init: driverCore.init,
  /** The {@link Device} class: a CUDA device by ordinal (pycuda.driver.Device). */
  Device: driverCore.Device,
  /** The {@link Context} class: a CUDA context, for code that pushes and pops contexts itself. */
  Context: driverCore.Context,
  /** The {@link Stream} class: a CUDA stream (work on it runs in order). */
  Stream: driverCore.Stream,
  /** The {@link Event} class: a CUDA event, for timing and cross-stream waits. */
  Event: driverCore.Event,
  /** Stream creation flags (CU_STREAM_*): `DEFAULT` 0, `NON_BLOCKING` 1. */
  streamFlags: driverCore.streamFlags,
  /** Event creation flags (CU_EVENT_*): `DEFAULT` 0, `BLOCKING_SYNC` 1, `DISABLE_TIMING` 2, `INTERPROCESS` 4. */
  eventFlags: driverCore.eventFlags,
  useDevice: driverCore.useDevice,
  withDevice: driverCore.withDevice,
  getDevice: driverCore.getDevice,
  canAccessPeer: driverCore.canAccessPeer,
  memGetInfo: driverCore.memGetInfo,
  /** The {@link DeviceAllocation} class: a block of device memory, as memAlloc returns (pycuda.driver.DeviceAllocation). */
  DeviceAllocation: memoryNs.DeviceAllocation,
  memAlloc: memoryNs.memAlloc,
  memAllocLike: memoryNs.memAllocLike,
  memcpyHtod: memoryNs.memcpyHtod,
  memcpyDtoh: memoryNs.memcpyDtoh,
  memcpyDtod: memoryNs.memcpyDtod,
  memcpyHtodAsync: memoryNs.memcpyHtodAsync,
  memcpyDtohAsync: memoryNs.memcpyDtohAsync,
  memcpyDtodAsync: memoryNs.memcpyDtodAsync,
  memsetD8: memoryNs.memsetD8,
  memsetD16: memoryNs.memsetD16,
  memsetD32: memoryNs.memsetD32,
  memsetD8Async: memoryNs.memsetD8Async,
  memsetD16Async: memoryNs.memsetD16Async,
  memsetD32Async: memoryNs.memsetD32Async,
  pagelockedEmpty: memoryNs.pagelockedEmpty,
  pagelockedZeros: memoryNs.pagelockedZeros,
  registerHostMemory: memoryNs.registerHostMemory,
  unregisterHostMemory: memoryNs.unregisterHostMemory,
  In: launchNs.In,
  Out: launchNs.Out,
  InOut: launchNs.InOut,
  moduleFromBuffer: modulesNs.moduleFromBuffer,
  /** The {@link Module} class: a CUBIN or PTX module loaded in the current context (moduleFromBuffer's result). */
  Module: modulesNs.Module,
  /** The {@link CudaArray} class (pycuda.driver.Array): a CUDA array, texture-layout memory for texture and surface objects. */
  Array: arrays.CudaArray,
  /** CUarray_format values (pycuda.driver.array_format): `UNSIGNED_INT8/16/32`, `SIGNED_INT8/16/32`, `HALF`, `FLOAT`. */
  arrayFormat: arrays.arrayFormat,
  /** CUDA_ARRAY3D_* flags (pycuda.driver.array3d_flags): `LAYERED`, `SURFACE_LDST`, `CUBEMAP`, `TEXTURE_GATHER`. */
  arrayFlags: arrays.arrayFlags,
  /** CUaddress_mode values: `WRAP` 0, `CLAMP` 1, `MIRROR` 2, `BORDER` 3. */
  addressMode: arrays.addressMode,
  /** CUfilter_mode values: `POINT` 0, `LINEAR` 1. */
  filterMode: arrays.filterMode,
  /** CU_TRSF_* texture flags (pycuda.driver.TRSF_*): `READ_AS_INTEGER`, `NORMALIZED_COORDINATES`, `SRGB`. */
  textureFlags: arrays.textureFlags,
  memAllocPitch: arrays.memAllocPitch,
  memcpy2D: arrays.memcpy2D,
  memcpy2DAsync: arrays.memcpy2DAsync,
  memcpy3D: arrays.memcpy3D,
  memcpy3DAsync: arrays.memcpy3DAsync,
  /** The {@link Memcpy2D} class: PyCUDA's 2-D copy descriptor (set the ends and sizes, then call it). */
  Memcpy2D: arrays.Memcpy2D,
  /** The {@link Memcpy3D} class: Memcpy2D with depth, slice heights and z offsets. */
  Memcpy3D: arrays.Memcpy3D,
  matrixToArray: arrays.matrixToArray,
  arrayFromGPUArray: arrays.arrayFromGPUArray,
  gpuarrayToArray: arrays.arrayFromGPUArray,
  /** The {@link TextureObject} class: a texture object over a CUDA array, linear memory or pitched 2-D memory. */
  TextureObject: textures.TextureObject,
  /** The {@link SurfaceObject} class: a surface object over a CUDA array made with `arrayFlags.SURFACE_LDST`. */
  SurfaceObject: textures.SurfaceObject,
});
export type { Memcpy2D, Memcpy3D } from './cuda/cuda_array';
export type {
  CudaArray, ArrayDescriptor, ArrayDescriptorInfo, ArrayFormatLike, CopyEnd, Memcpy2DOptions, Memcpy3DOptions, ToArrayOptions,
} from './cuda/cuda_array';
export { gl } from './gl';
export { nccl } from './nccl';
export type {
  Communicator as NcclCommunicator, CommunicatorOptions as NcclCommunicatorOptions, CollectiveOptions as NcclCollectiveOptions,
  ReduceOptions as NcclReduceOptions, RootOptions as NcclRootOptions, ReduceOp as NcclReduceOp,
} from './nccl';
export type { GlError } from './gl/errors';
export type { HeadlessContext, HeadlessContextOptions, GlAvailability, EglDeviceInfo } from './gl/context';
export type { RegisteredBuffer, RegisteredImage, RegisteredMapping, RegisteredObject } from './gl/interop';
export type { BufferObject } from './gl';
export type {
  TextureObject, SurfaceObject, TextureDesc, TextureResource, LinearResource, Pitch2DResource, AddressModeName,
} from './cuda/texture';

export type { SeedGetter, GeneratorLayout, CurandOptions } from './random/curandom';

/**
 * NVRTC compilation without loading (works with no GPU when `arch` is given).
 * @namespace
 */
export const compiler = Object.freeze({
  compile: compilerNs.compile,
  compileAsync: compilerNs.compileAsync,
  /** The {@link SourceModule} class: CUDA C++ compiled with NVRTC and loaded (the same class as the top-level export). */
  SourceModule: modulesNs.SourceModule,
  clearCache: compilerNs.clearCache,
});

// eslint-disable-next-line @typescript-eslint/no-require-imports
const PACKAGE_VERSION: string = require('../package.json').version;

/** Versions of the pieces. */
export interface Versions {
  /** This package's version, e.g. '0.1.0'. */
  nodecuda: string;
  /** CUDA version the driver supports, e.g. '13.0'; null without a driver. */
  driver: string | null;
  /** NVRTC version, e.g. '13.0'; null when NVRTC is not found. */
  nvrtc: string | null;
  /** N-API version the addon was built for. */
  napi: number;
}

/**
 * Versions of nodecuda, the driver, NVRTC and N-API. Never throws.
 * @example
 * console.log(cuda.version()); // { nodecuda: '0.1.0', driver: '13.0', nvrtc: '13.0', napi: 9 }
 */
export function version(): Versions {
  let drv: string | null;
  let nvrtc: string | null;
  try {
    // Known even for a driver too old to use (the loader reads it before refusing one).
    const v = cu.driverStatus().version;
    drv = v ? cudaVersionString(v) : null;
  } catch {
    drv = null;
  }
  try {
    const [maj, min] = cu.nvrtcVersion();
    nvrtc = `${maj}.${min}`;
  } catch {
    nvrtc = null;
  }
  return { nodecuda: PACKAGE_VERSION, driver: drv, nvrtc, napi: cu.napiVersion() };
}

/**
 * Live device allocations made by this thread's nodecuda and their bytes, plus the driver
 * pool's reserved/used bytes (0 without a driver).
 * @example
 * const before = cuda.memory().liveBytes;
 */
export function memory(): {
  /** Live GPUArray owners (views share their owner's allocation); equals liveAllocations. */
  liveArrays: number;
  /** Live device allocations made by this thread's nodecuda (workspaces not counted). */
  liveAllocations: number;
  /** Bytes of those allocations. */
  liveBytes: number;
  /** Bytes the driver's memory pool holds reserved (0 without a driver). */
  poolReservedBytes: number;
  /** Bytes of the pool in use (0 without a driver). */
  poolUsedBytes: number;
} {
  let [liveAllocations, liveBytes] = cu.memLive();
  for (const w of memoryNs.workspaceAllocations) {
    if (w.freed) {
      memoryNs.workspaceAllocations.delete(w);
    } else {
      liveAllocations--;
      liveBytes -= w.size;
    }
  }
  let pool: [number, number] = [0, 0];
  if (driverCore.isAvailable()) pool = cu.poolInfo();
  // Every GPUArray owner is one allocation; views share their owner's.
  return { liveArrays: liveAllocations, liveAllocations, liveBytes, poolReservedBytes: pool[0], poolUsedBytes: pool[1] };
}

/**
 * Returns nodecuda's cached small blocks to the pool, then the pool's cached memory to the driver
 * (after waiting for the device).
 * @example
 * cuda.freeCachedMemory();
 */
export function freeCachedMemory(): void {
  // Without a usable driver nothing was ever allocated: nothing to free (and nothing to throw).
  if (!driverCore.isAvailable()) return;
  cu.poolTrim();
}
