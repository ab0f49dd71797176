/**
 * Error classes. Native code receives CudaError and NvrtcError at load time and throws instances
 * of them, so `instanceof` works for errors from every layer.
 */

/** Extra fields a CudaError carries. */
export interface CudaErrorInfo {
  /** `CUDA_ERROR_*` name, or `CUDA_DRIVER_NOT_FOUND` when no driver could be loaded. */
  code: string;
  /** Numeric CUresult (negative for nodecuda's own codes). */
  status: number;
  /** The driver function that failed, e.g. `cuMemAlloc`. */
  call: string;
  /** True when the context is unusable until `device.reset()`. */
  poisoned?: boolean;
  /** For out-of-memory errors: bytes requested and bytes free at the time. */
  requestedBytes?: number;
  /** For out-of-memory errors: bytes free at the time. */
  freeBytes?: number;
}

/**
 * A failed CUDA driver call.
 * @example
 * try { driver.memAlloc(1e15); } catch (e) {
 *   if (e instanceof CudaError && e.code === 'CUDA_ERROR_OUT_OF_MEMORY') console.log(e.freeBytes);
 * }
 */
export class CudaError extends Error {
  /** `CUDA_ERROR_*` name, or `CUDA_DRIVER_NOT_FOUND` when no driver could be loaded. */
  readonly code: string;
  /** Numeric CUresult (negative for nodecuda's own codes). */
  readonly status: number;
  /** The driver function that failed, e.g. `cuMemAlloc`. */
  readonly call: string;
  /** True when the context is unusable until `device.reset()`. */
  readonly poisoned: boolean;
  // `declare`: no own property unless set (ES2022 class fields would define each as undefined,
  // and every CudaError would print `requestedBytes: undefined, freeBytes: undefined`).
  /** For out-of-memory errors: bytes requested (absent otherwise). */
  declare requestedBytes?: number;
  /** For out-of-memory errors: bytes free at the time (absent otherwise). */
  declare freeBytes?: number;
  constructor(message: string, info: CudaErrorInfo) {
    super(message);
    checkInfo(info, 'CudaError');
    this.name = 'CudaError';
    this.code = info.code;
    this.status = info.status;
    this.call = info.call;
    this.poisoned = info.poisoned ?? false;
    if (info.requestedBytes !== undefined) this.requestedBytes = info.requestedBytes;
    if (info.freeBytes !== undefined) this.freeBytes = info.freeBytes;
  }
}

/** Extra fields a CublasError carries. */
export interface CublasErrorInfo {
  /** `CUBLAS_STATUS_*` name, or `CUBLAS_NOT_FOUND` when libcublas could not be loaded. */
  code: string;
  /** Numeric cublasStatus_t (-1 for `CUBLAS_NOT_FOUND`). */
  status: number;
  /** The cuBLAS function that failed, e.g. `cublasGemmStridedBatchedEx`. */
  call: string;
}

/**
 * A failed cuBLAS call (matmul and friends), or cuBLAS missing: code `CUBLAS_NOT_FOUND`, with
 * what to install in the message.
 * @example
 * try { gpuarray.matmul(a, b); } catch (e) {
 *   if (e instanceof CublasError && e.code === 'CUBLAS_NOT_FOUND') console.log(e.message);
 * }
 */
export class CublasError extends Error {
  /** `CUBLAS_STATUS_*` name, or `CUBLAS_NOT_FOUND` when libcublas could not be loaded. */
  readonly code: string;
  /** Numeric cublasStatus_t (-1 for `CUBLAS_NOT_FOUND`). */
  readonly status: number;
  /** The cuBLAS function that failed, e.g. `cublasGemmStridedBatchedEx`. */
  readonly call: string;
  constructor(message: string, info: CublasErrorInfo) {
    super(message);
    checkInfo(info, 'CublasError');
    this.name = 'CublasError';
    this.code = info.code;
    this.status = info.status;
    this.call = info.call;
  }
}

/** Extra fields an NvrtcError carries. */
export interface NvrtcErrorInfo {
  /** `NVRTC_ERROR_*` name, or `NVRTC_NOT_FOUND` when NVRTC could not be loaded. */
  code: string;
  /** Numeric nvrtcResult (negative for nodecuda's own codes). */
  status: number;
  /** The NVRTC function that failed, e.g. `nvrtcCompileProgram`. */
  call: string;
  /** The compiler log ('' when there is none). */
  log: string;
  /** The source as compiled (after wrapping), when known. */
  source?: string;
  /** The NVRTC options used, when known. */
  options?: string[];
}

/**
 * A failed NVRTC compilation (or NVRTC missing: code `NVRTC_NOT_FOUND`).
 * The message shows the compiler log and the source lines around each error.
 * @example
 * try { new SourceModule('__global__ void k() { oops }'); } catch (e) {
 *   if (e instanceof NvrtcError) console.log(e.log);
 * }
 */
export class NvrtcError extends Error {
  /** `NVRTC_ERROR_*` name, or `NVRTC_NOT_FOUND` when NVRTC could not be loaded. */
  readonly code: string;
  /** Numeric nvrtcResult (negative for nodecuda's own codes). */
  readonly status: number;
  /** The NVRTC function that failed, e.g. `nvrtcCompileProgram`. */
  readonly call: string;
  /** The compiler log. */
  readonly log: string;
  /** The source as compiled (after wrapping), when known (absent otherwise). */
  declare source?: string;
  /** The NVRTC options used, when known (absent otherwise). */
  declare options?: string[];
  constructor(message: string, info: NvrtcErrorInfo) {
    super(message);
    checkInfo(info, 'NvrtcError');
    this.name = 'NvrtcError';
    this.code = info.code;
    this.status = info.status;
    this.call = info.call;
    this.log = info.log ?? '';
    if (info.source !== undefined) this.source = info.source;
    if (info.options !== undefined) this.options = info.options;
  }
}

/** Extra fields an NcclError carries. */
export interface NcclErrorInfo {
  /**
   * `NCCL_*` name of the ncclResult_t (`NCCL_REMOTE_ERROR`, `NCCL_INVALID_USAGE` …), or one of
   * nodecuda's: `NCCL_NOT_FOUND` (no libnccl), `NCCL_TIMEOUT` (init or an async call took longer
   * than `timeoutMs`; the communicator was aborted), `NCCL_IN_PROGRESS` (a synchronous call on a
   * communicator still initialising or busy: await `comm.ready` or use the Async form),
   * `NCCL_ABORTED` (used after abort() or a failure).
   */
  code: string;
  /** Numeric ncclResult_t (negative for nodecuda's own codes). */
  status: number;
  /** The NCCL function that failed, e.g. `ncclAllReduce`. */
  call: string;
  /** ncclGetLastError's text, when NCCL had one. */
  lastError?: string;
}

/**
 * A failed NCCL call, a failed peer (reported by ncclCommGetAsyncError), or NCCL missing.
 * @example
 * try { await comm.allReduceAsync(x); } catch (e) {
 *   if (e instanceof NcclError && e.code === 'NCCL_REMOTE_ERROR') console.log('a peer failed');
 * }
 */
export class NcclError extends Error {
  /** `NCCL_*` name of the ncclResult_t, or one of nodecuda's codes (see {@link NcclErrorInfo.code}). */
  readonly code: string;
  /** Numeric ncclResult_t (negative for nodecuda's own codes). */
  readonly status: number;
  /** The NCCL function that failed, e.g. `ncclAllReduce`. */
  readonly call: string;
  /** ncclGetLastError's text ('' when NCCL had none). */
  readonly lastError: string;
  constructor(message: string, info: NcclErrorInfo) {
    super(message);
    checkInfo(info, 'NcclError');
    this.name = 'NcclError';
    this.code = info.code;
    this.status = info.status;
    this.call = info.call;
    this.lastError = info.lastError ?? '';
  }
}

/**
 * A failed cuFFT call (`code` = `CUFFT_*` cufftResult name, `call` = the cuFFT function), or
 * libcufft missing (`CUFFT_NOT_FOUND`, the message says what to install).
 * @example
 * try { fft.fft(x); } catch (e) { if (e instanceof CufftError) console.log(e.code); }
 */
export class CufftError extends Error {
  /** `CUFFT_*` cufftResult name, or `CUFFT_NOT_FOUND` when libcufft could not be loaded. */
  readonly code: string;
  /** Numeric cufftResult. */
  readonly status: number;
  /** The cuFFT function that failed, e.g. `cufftExecC2C`. */
  readonly call: string;
  constructor(message: string, info: { code: string; status: number; call: string }) {
    super(message);
    checkInfo(info, 'CufftError');
    this.name = 'CufftError';
    this.code = info.code;
    this.status = info.status;
    this.call = info.call;
  }
}

/** An error class's info argument: an object with a string code (else a TypeError saying so). */
function checkInfo(info: unknown, what: string): void {
  if (typeof info !== 'object' || info === null || typeof (info as { code?: unknown }).code !== 'string') {
    throw typeError('ERR_INVALID_ARG_TYPE', `new ${what}(message, info): info must be an object with a string code, such as ` +
      `{ code, status, call }. Received ${describe(info)}`);
  }
}

/** A TypeError with a Node-style `code` (`ERR_INVALID_ARG_TYPE` …). */
export function typeError(code: string, message: string): TypeError {
  const e = new TypeError(message) as TypeError & { code: string };
  e.code = code;
  return e;
}

/** A RangeError with a Node-style `code` (`ERR_OUT_OF_RANGE` …). */
export function rangeError(code: string, message: string): RangeError {
  const e = new RangeError(message) as RangeError & { code: string };
  e.code = code;
  return e;
}

/** Describes a value for error messages: `a number (1.5)`, `an instance of Foo`, … */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (v === undefined) return 'undefined';
  if (typeof v === 'number') return `a number (${v})`;
  if (typeof v === 'bigint') return `a bigint (${v}n)`;
  if (typeof v === 'string') return `a string (${JSON.stringify(v.length > 40 ? v.slice(0, 40) + '…' : v)})`;
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'object') {
    const name = (v as object).constructor?.name;
    return name ? `an instance of ${name}` : 'an object';
  }
  return `a ${typeof v}`;
}

/** Checks that `v` is a non-negative safe integer; RangeError/TypeError otherwise. */
export function checkSize(v: unknown, name: string, max = Number.MAX_SAFE_INTEGER): number {
  if (typeof v !== 'number') {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be a number. Received ${describe(v)}`);
  }
  if (!Number.isInteger(v) || v < 0 || v > max) {
    throw rangeError(
      'ERR_OUT_OF_RANGE',
      `The "${name}" argument must be an integer in [0, ${max}]. Received ${v}`,
    );
  }
  return v;
}

const NO_OPTIONS = Object.freeze({});

/** @internal An options argument: undefined or null → {}; anything but an object is a TypeError. */
export function optionsArg<T extends object>(v: T | null | undefined, name = 'options'): T {
  if (v === undefined || v === null) return NO_OPTIONS as T; // every options type has only optional fields
  if (typeof v !== 'object') throw typeError('ERR_INVALID_ARG_TYPE', `The "${name}" argument must be an object. Received ${describe(v)}`);
  return v;
}

/** @internal optionsArg(v), then knownOptions(): an option `what` does not take is a TypeError. */
export function checkedOptions<T extends object>(v: T | null | undefined, what: string, keys: readonly string[]): T {
  const o = optionsArg(v);
  knownOptions(o, what, keys);
  return o;
}

/**
 * @internal Refuses an option `what` does not know (set to anything but undefined), so that an
 * option another library reads — NumPy's `kind`, torch's `descending` — is an error, not dropped.
 * `hidden`: @internal options also taken, left out of the message's list of known ones.
 */
export function knownOptions(o: object, what: string, keys: readonly string[], hidden: readonly string[] = []): void {
  for (const k of Object.keys(o)) {
    if (!keys.includes(k) && !hidden.includes(k) && (o as Record<string, unknown>)[k] !== undefined) {
      // A class instance in the options' place is most often PyCUDA's positional stream: say so.
      const proto: unknown = Object.getPrototypeOf(o);
      const hint = proto && proto !== Object.prototype ? `; the options must be a plain object such as { stream }, not ${describe(o)}` : '';
      throw typeError('ERR_INVALID_ARG_VALUE', `${what}: unknown option "${k}" (known: ${keys.join(', ')})${hint}`);
    }
  }
}
