/**
 * Keys of the radix sort (templates/sort.ts): what a stage sorts by, its size and significant bits,
 * and the order-preserving transforms to unsigned integers (device helpers nc_tf / nc_untf).
 */
import { DType } from '../../base/dtype';

/** Most digit passes of one stage (64-bit keys). */
export const MAX_PASSES = 8;

/** What one LSD stage sorts by, as a function of the payload `p` (the element's flat index). */
export type KeyKind = 'value' | 're' | 'im' | 'row';

/** C unsigned type of `bytes` bytes. */
export function uintC(bytes: number): string {
  return bytes === 1 ? 'unsigned char' : bytes === 2 ? 'unsigned short' : bytes === 4 ? 'unsigned int' : 'unsigned long long';
}

/** Bytes of a stage's transformed key. */
export function keyBytes(dt: DType, kind: KeyKind): number {
  if (kind === 'row') return 4;
  if (kind !== 'value') return dt.bytes / 2;
  return dt.kind === 'b' ? 1 : dt.bytes;
}

/** Significant bits of a stage's key (rows: enough for `rows` - 1). */
export function keyBits(dt: DType, kind: KeyKind, rows = 1): number {
  if (kind === 'row') return Math.max(1, Math.ceil(Math.log2(Math.max(2, rows))));
  return dt.kind === 'b' ? 1 : keyBytes(dt, kind) * 8;
}

/**
 * The largest non-NaN magnitude bits (exponent all ones, mantissa zero: infinity) of a float of
 * `bytes` bytes; bits above it (sign cleared) are NaN.
 */
function infBits(dt: DType, bytes: number): string {
  if (bytes === 8) return '0x7ff0000000000000ull';
  if (bytes === 4) return '0x7f800000u';
  // 2-byte floats: float16 (nc_half). >>> bfloat16 goes here: `dt.storageC === 'nc_bf16' ? '0x7f80u'`.
  if (dt.storageC === 'nc_bf16') return '0x7f80u';
  return '0x7c00u';
}

/** Device helpers nc_tf (bits → key) and nc_untf (key → bits) for a part of `bytes` bytes of dtype `dt`. */
export function transforms(dt: DType, bytes: number): string {
  const U = uintC(bytes);
  const sign = `((${U})1 << ${bytes * 8 - 1})`;
  const float = dt.kind === 'f' || dt.kind === 'c';
  const tf = dt.kind === 'b' ? `(${U})(b != 0)`
    : dt.kind === 'u' ? 'b'
      : dt.kind === 'i' ? `(${U})(b ^ ${sign})`
        : `((${U})(b & (${U})~${sign}) > (${U})${infBits(dt, bytes)}) ? (${U})~(${U})0 : ((b & ${sign}) ? (${U})~b : (${U})(b | ${sign}))`;
  const untf = float ? `(k & ${sign}) ? (${U})(k ^ ${sign}) : (${U})~k` : tf.replace(/\bb\b/g, 'k');
  return `
__device__ __forceinline__ ${U} nc_tf(${U} b) { return ${tf}; }
__device__ __forceinline__ ${U} nc_untf(${U} k) { return ${untf}; }`;
}

/** The dtype's part of a kernel name. */
export const tag = (d: DType): string => d.name;

/** Grid-stride loop header over `n` items (unsigned long long i). */
export const gridLoop = (n: string): string => `for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < ${n};
       i += (unsigned long long)gridDim.x * blockDim.x)`;
