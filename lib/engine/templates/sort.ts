/**
 * The sort kernel family (CUDA C source; needs PREAMBLE before it): an LSD radix sort on keys
 * transformed to unsigned integers (8-bit digits, one pass per digit, "onesweep" structure):
 *
 * - `prep` reads the input (or the previous stage's payload), writes the transformed keys (and the
 *   payload) and counts the digits of every pass at once into global histograms;
 * - `scanhist` (one block) turns those histograms into each digit's global start, finds the passes
 *   whose digit is the same for every key (skipped: one bin holds n) and writes per pass which
 *   ping-pong buffer is the source, so the host never reads anything back;
 * - `pass` (one per digit): tiles of passBlock × sortItems keys taken in ticket order; each warp
 *   ranks its contiguous chunk (the lanes sharing a digit from a shared atomicOr, see RANK; stable:
 *   lanes in order, items in order),
 *   per-warp digit counts are scanned across warps, each of the first 256 threads (one per digit)
 *   publishes its tile's digit count and looks back over its predecessors' published counts
 *   (decoupled look-back, status + epoch + value in one 64-bit word) for the digit's global
 *   position; keys (then payloads) are exchanged through shared memory so the global writes are
 *   coalesced runs;
 * - the last executed pass writes the result (un-transformed keys, values gathered by the payload
 *   and/or indices); `finish` does it instead when every pass was skipped.
 *
 * Key transforms (order-preserving maps to unsigned integers): unsigned ints as they are, signed
 * ints with the sign bit flipped, floats with all bits flipped when negative else the sign bit set,
 * every NaN to the all-ones maximum (NaNs last, equal to each other, so stable among themselves);
 * -0.0 sorts before +0.0. Complex: real part then imaginary part, each transformed like a float.
 */
import { DType, DTYPES } from '../../base/dtype';
import { envFlag, envNumber } from '../../base/env';
import {
  RANGE_COUNTED, uniqueBinsCountKernel, uniqueBinsResultKernel, uniqueCountKernel, uniqueCountsKernel, uniqueHistKernel,
  uniqueInverseKernel, uniqueResultKernel,
} from './unique';

/**
 * Threads per tile of the scatter pass (tuning: NODECUDA_SORT_BLOCK, 256 or 512, for every key
 * size): the first 256 are one per digit for the digit scans and the look-back; with 512 the others
 * only load, rank and scatter keys (twice the warps an SM at under half the keys a thread).
 */
const BLOCK_SET = process.env.NODECUDA_SORT_BLOCK?.trim()
  ? envNumber('NODECUDA_SORT_BLOCK', 256, { min: 256, max: 512, oneOf: [256, 512] }) : 0;
/**
 * Keys per thread in a scatter tile (tuning: NODECUDA_SORT_ITEMS, which sets every variant): with
 * 256 threads 32 for keys only, 24 with a payload (more spills registers under the
 * two-blocks-per-SM bound); with 512 threads 14 (64 registers a thread); capped by shared memory
 * (sortItems).
 */
const ITEMS_SET = process.env.NODECUDA_SORT_ITEMS?.trim()
  ? envNumber('NODECUDA_SORT_ITEMS', 32, { min: 4, max: 32, multipleOf: 2 }) : 0;
/**
 * How a warp finds the lanes sharing a digit when it ranks (tuning: NODECUDA_SORT_BALLOTS=0/1):
 * 'atomic' (default) ORs each lane's bit into a per-warp shared word of its digit and reads the
 * word back (one shared atomic a key, as CUB's ATOMIC_OR ranking); 'ballots' takes eight warp
 * ballots, one per digit bit (a constant cost, about 30 instructions a key; docs/sorting.md).
 */
const RANK: 'atomic' | 'ballots' = envFlag('NODECUDA_SORT_BALLOTS', false) ? 'ballots' : 'atomic';
/**
 * Whether a scatter tile counts its keys' digits before it ranks them (tuning:
 * NODECUDA_SORT_EARLY=0/1, default on; CUB's "early counts"): per-warp counts (one shared atomic increment a
 * key), the digit scans and the publication of the tile's counts first, so the ranking gives tile
 * positions and successors looking back find the counts sooner; the look-back then runs after the
 * exchange writes. Otherwise the ranking counts, and the digit scans and the look-back follow it.
 * Per-warp counts are 32-bit either way with it (atomics), so 512-thread tiles of 8-byte keys hold
 * 7 keys a thread.
 */
const EARLY = envFlag('NODECUDA_SORT_EARLY', true);
/**
 * Whether the shared per-digit arrays of the scatter pass are swizzled (digits 32 apart, which share
 * a bank, spread over 8 banks; tuning: NODECUDA_SORT_SWIZZLE=0/1): low-entropy digits such as
 * multiples of 64 otherwise queue on one bank.
 */
const SWIZZLE = envFlag('NODECUDA_SORT_SWIZZLE', true);
/**
 * Elements per thread of one `prep` iteration (tuning: NODECUDA_SORT_PREP_ITEMS, 1 to 8): a warp
 * loads that many runs of 32 before it counts their digits, so more loads are in flight.
 */
export const PREP_ITEMS = envNumber('NODECUDA_SORT_PREP_ITEMS', 4, { min: 1, max: 8 });
/**
 * Width of `prep`'s shared digit counters (tuning: NODECUDA_SORT_PREP_BITS, 32 or 16): one 32-bit
 * counter a digit, each key adding 1 (the default: a constant increment compiles to ATOMS.POPC.INC,
 * which merges the lanes of a warp on one counter into one update; a block's counts cannot
 * overflow, so it flushes once at its end), or 16-bit halves, two digits a word, each key adding 1
 * or 65536 (ATOMS.ADD; flushed before a half could overflow). H100, per-kernel events: prep of a
 * 2^28 float32 sort 1.08 ms (16-bit, 4 copies) → 0.79 (32-bit, 1 copy); docs/sorting.md.
 */
const PREP_BITS = envNumber('NODECUDA_SORT_PREP_BITS', 32, { min: 16, max: 32, oneOf: [16, 32] });
/**
 * Copies of the shared histograms in `prep` (tuning: NODECUDA_SORT_PREP_COPIES, a power of two up
 * to 16, at most 32 KiB of them; default 1 with 32-bit counters, 4 with 16-bit ones): more copies,
 * fewer lanes of a warp on one bank.
 */
const PREP_COPIES_SET = envNumber('NODECUDA_SORT_PREP_COPIES', PREP_BITS === 32 ? 1 : 4, { min: 1, max: 16, oneOf: [1, 2, 4, 8, 16] });
/**
 * Iterations of `prep` with 16-bit counters between moves of its shared counts to the global
 * histograms: the most before a half could overflow (a copy counts for 256 / C threads, I keys each
 * an iteration), or fewer with NODECUDA_SORT_PREP_FLUSH (1 to 1023, for tests).
 */
const PREP_FLUSH_SET = envNumber('NODECUDA_SORT_PREP_FLUSH', 1023, { min: 1, max: 1023 });
/**
 * Whether `prep` of a real dtype's values has its histogram-only path (tuning:
 * NODECUDA_SORT_PREP_FAST=0/1): when it stores nothing (the stage's first pass reads the input)
 * and the input is element-aligned, each thread keeps PREP_VECTORS 16-byte loads in flight and
 * counts their keys without bounds checks (a scalar head before the first 16-byte boundary and a
 * tail, counted by the last block). About 14 instructions a 4-byte key in SASS against 67 for the
 * general loop (its 64-bit indices, per-key checks and stores); CUB's histogram kernel takes 21.
 */
const PREP_FAST = envFlag('NODECUDA_SORT_PREP_FAST', true);
/** 16-byte loads a thread of prep's histogram-only path has in flight. */
const PREP_VECTORS = 4;
function prepFlush(copies: number, items: number): number {
  return Math.min(PREP_FLUSH_SET, Math.floor(65535 / ((256 / copies) * items)));
}
function prepCopies(kb: number): number {
  return Math.min(PREP_COPIES_SET, (32 * 1024) / (kb * (PREP_BITS === 16 ? 128 : 256) * 4));
}
/**
 * Blocks per SM the scatter pass is compiled for (its __launch_bounds__ minimum; tuning:
 * NODECUDA_SORT_PASS_BLOCKS, 2 to 4): more blocks hide more latency but leave fewer registers a
 * thread for its keys (65536 / (threads × blocks): 128 for 256 × 2, 64 for 512 × 2).
 */
const PASS_BLOCKS = envNumber('NODECUDA_SORT_PASS_BLOCKS', 2, { min: 2, max: 4 });
/**
 * Threads of a scatter tile of `kb`-byte keys, with or without a payload: 512 × 14 keys for 4-byte
 * keys with a payload, 256 for the others (4-byte keys only: 256 × 32). Measured on an H100 with
 * today's pass (docs/sorting.md): against 256 × 24, 512 × 14 takes 2-4 % less time in a 2^28
 * float32 argsort's passes; against 512 × 14, 256 × 32 takes 9-10 % less in unique's 2^26 int32
 * passes and a 2^28 float32 sort's. Other key sizes were not measured with 512.
 */
export function passBlock(kb: number, payload: boolean): number {
  return BLOCK_SET || (kb === 4 && payload ? 512 : 256);
}
/** Bytes a key takes in the scatter pass's shared exchange (keys, then the uint32 payloads, in turn). */
function exchangeBytes(kb: number, payload: boolean): number {
  return Math.max(kb, payload ? 4 : kb);
}
/**
 * Keys per thread in a scatter tile of `kb`-byte keys, with or without a payload: at most 32 KiB of
 * exchange a tile (16 for 8-byte keys of 256 threads, 8 of 512 threads; 28 KiB and 7 with early
 * counts at 512 threads).
 */
export function sortItems(kb: number, payload: boolean): number {
  const B = passBlock(kb, payload);
  const it = ITEMS_SET || (B === 512 ? 14 : payload ? 24 : 32);
  // Early counts with 512 threads: 16 KiB of 32-bit per-warp counts leave 28 KiB for the exchange.
  return Math.min(it, Math.floor((EARLY && B > 256 ? 28672 : 32768) / (B * exchangeBytes(kb, payload))));
}
/** Keys per scatter tile of `kb`-byte keys, with or without a payload. */
export function sortTile(kb: number, payload: boolean): number {
  return passBlock(kb, payload) * sortItems(kb, payload);
}
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
function transforms(dt: DType, bytes: number): string {
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

const tag = (d: DType): string => d.name;

/**
 * The `prep` kernel of a stage: keys (and payloads) and the digit histograms of every pass. With
 * `range` (unique's sort of an integer dtype; a kernel of its own, so sorts do not pay for it) it
 * also adds the least and greatest key to the uint64 pair at its `range` parameter.
 */
export function prepKernel(dt: DType, kind: KeyKind, range = false): { source: string; name: string } {
  const kb = keyBytes(dt, kind);
  const K = uintC(kb);
  // row keys: any dtype
  const name = kind === 'row' ? 'nc_sort_prep_row' : `nc_sort_prep_${kind}_${tag(dt)}${range ? '_range' : ''}`;
  // Row keys read no input: one source for every dtype (the prebuilt catalog ships it once).
  const pb = kind === 'row' ? 4 : kind === 'value' && dt.kind !== 'c' ? dt.bytes : dt.bytes / 2;
  const P = uintC(pb);
  const key = kind === 'row' ? 'p / len'
    : kind === 're' ? 'nc_tf(in[2ull * p])'
      : kind === 'im' ? 'nc_tf(in[2ull * p + 1])'
        : dt.kind === 'c' ? '((unsigned long long)nc_tf(in[2ull * p]) << 32) | nc_tf(in[2ull * p + 1])'
          : 'nc_tf(in[p])';
  const C = prepCopies(kb);
  const I = PREP_ITEMS;
  const W32 = PREP_BITS === 32;
  // Real values: one input element a key (complex values pair two parts into one key).
  const fast = PREP_FAST && W32 && kind === 'value' && dt.kind !== 'c';
  const WP = W32 ? 256 : 128;  // shared words of a pass's counts (one copy)
  const source = `
namespace ${name}_ns {${kind === 'row' ? '' : transforms(dt, pb)}
}
extern "C" __global__ void __launch_bounds__(256) ${name}(const void* __restrict__ in_, const unsigned int* pv0,
    const unsigned int* pv1, const unsigned int* __restrict__ pinfo, ${K}* __restrict__ kout, unsigned int* vout,
    const unsigned int n, const unsigned int len, unsigned int* __restrict__ hist, const int passes,
    unsigned long long* __restrict__ range) {
  using namespace ${name}_ns;
  const ${P}* __restrict__ in = reinterpret_cast<const ${P}*>(in_);
  (void)in; (void)len;
  // Each pass's 256 counts as ${W32 ? '256 32-bit words' : '128 words of two 16-bit halves'}, ${C} copies of every word side by side
  // (a lane counts into copy lane % ${C}): at most ${32 / C} lanes of a warp meet on a bank, or on a
  // word when the whole warp has one digit (constant high bytes of small-range keys).
  __shared__ unsigned int sh[${kb * WP * C}];
  for (int k = threadIdx.x; k < ${kb * WP * C}; k += blockDim.x) sh[k] = 0;
  __syncthreads();
  // Adds the copies of each ${W32 ? 'count' : 'pair of counts'} to the global histograms and zeroes them.
  auto flush = [&]() {
    for (int w = threadIdx.x; w < passes * ${WP}; w += blockDim.x) {
      unsigned int lo = 0${W32 ? '' : ', hi = 0'};
      #pragma unroll
      for (int c = 0; c < ${C}; c++) {
        const int at = w * ${C} + ((c + w) & ${C - 1});  // rotated: the threads of a warp read different banks
        const unsigned int v = sh[at];
        sh[at] = 0;${W32 ? `
        lo += v;
      }
      if (lo) atomicAdd(&hist[w], lo);` : `
        lo += v & 0xffffu;
        hi += v >> 16;
      }
      if (lo) atomicAdd(&hist[((w >> 7) << 8) + 2 * (w & 127)], lo);
      if (hi) atomicAdd(&hist[((w >> 7) << 8) + 2 * (w & 127) + 1], hi);`}
    }
  };
  const unsigned int pf = pinfo ? *pinfo : 4u;  // the previous stage's result: bit 1 buffer 1, bit 2 identity
  const unsigned int* pv = (pf & 2u) ? pv1 : pv0;
  const unsigned int lane = threadIdx.x & 31;
  const unsigned int copy = lane & ${C - 1};
${W32 ? '' : `  unsigned int round = 0;
`}${range ? `  // The least and greatest key, reduced over the block at its end.
  ${K} klo = (${K})~(${K})0, khi = 0;
` : ''}${fast ? prepFastPath(pb, kb, C, range, K) : ''}  // Each warp takes ${I} runs of 32 consecutive elements at once (all its loads in flight before the
  // first count). Block-uniform loop: a warp past the end counts nothing.
  for (unsigned long long b0 = (unsigned long long)blockIdx.x * blockDim.x * ${I}ull; b0 < n;
       b0 += (unsigned long long)gridDim.x * blockDim.x * ${I}ull) {
    const unsigned long long i0 = b0 + (threadIdx.x & ~31u) * ${I}ull;
    ${K} k[${I}];
    unsigned int pj[${I}];
    #pragma unroll
    for (int j = 0; j < ${I}; j++) {
      const unsigned long long i = i0 + 32u * j + lane;
      k[j] = 0;
      pj[j] = 0;
      if (i < n) {
        const unsigned int p = (pf & 4u) ? (unsigned int)i : pv[i];
        pj[j] = p;
        k[j] = ${key};
      }
    }
    #pragma unroll
    for (int j = 0; j < ${I}; j++) {
      const unsigned long long i = i0 + 32u * j + lane;
      const bool valid = i < n;
      if (valid) {
${range ? `        klo = k[j] < klo ? k[j] : klo;
        khi = k[j] > khi ? k[j] : khi;
` : ''}        if (kout) kout[i] = k[j];  // null: the stage's first pass reads the input itself (scanhist's raw)
        if (vout) vout[i] = pj[j];  // in place is fine: element i is read and written by this thread only
      }
      #pragma unroll
      for (int q = 0; q < ${kb}; q++) {
${kind === 'row' ? `        if (q == passes) break;  // row keys: as many passes as the rows need
` : ''}        const unsigned int d = (unsigned int)((k[j] >> (8 * q)) & 255u);
        if (valid) atomicAdd(&sh[${W32 ? `((q << 8) + d) * ${C} + copy], 1u` : `((q << 7) + (d >> 1)) * ${C} + copy], 1u << ((d & 1u) << 4)`});
      }
    }${W32 ? '' : `
    // A half takes at most 65535, and a copy gets at most ${256 / C} threads × ${I} counts an iteration.
    if (++round == ${prepFlush(C, I)}u) {
      round = 0;
      __syncthreads();
      flush();
      __syncthreads();
    }`}
  }${fast ? `
  }` : ''}
  __syncthreads();
  flush();${range ? `
  {
    unsigned long long lo = klo, hi = khi;
    #pragma unroll
    for (int o = 16; o > 0; o >>= 1) {
      const unsigned long long a = __shfl_xor_sync(0xffffffffu, lo, o), b = __shfl_xor_sync(0xffffffffu, hi, o);
      lo = a < lo ? a : lo;
      hi = b > hi ? b : hi;
    }
    __shared__ unsigned long long s_r[2][8];
    if (lane == 0) { s_r[0][threadIdx.x >> 5] = lo; s_r[1][threadIdx.x >> 5] = hi; }
    __syncthreads();
    if (threadIdx.x == 0) {
      #pragma unroll
      for (int w = 1; w < 8; w++) { lo = s_r[0][w] < lo ? s_r[0][w] : lo; hi = s_r[1][w] > hi ? s_r[1][w] : hi; }
      atomicMin(&range[0], lo);
      atomicMax(&range[1], hi);
    }
  }` : ''}
}`;
  return { source, name };
}

/**
 * prep's histogram-only path (PREP_FAST), before the general loop as its `if` branch (the loop is
 * the `else`): keys of `kb` bytes, each one input element of `pb` bytes (P bits, turned into the
 * key by nc_tf), counted into copy `copy` of the shared counts (C copies, 32-bit); with `range`,
 * also the least and greatest key. Taken when prep stores nothing (no kout/vout, the identity
 * payload) and the input is element-aligned. Elements before the first 16-byte boundary (the
 * head) and after the last whole vector (the tail), fewer than 16 / pb each, are the last block's.
 */
function prepFastPath(pb: number, kb: number, C: number, range: boolean, K: string): string {
  const V = 16 / pb;  // elements a 16-byte vector
  const U = PREP_VECTORS;
  // Element x of the vector's words w[0..3] (little-endian), as its P bits.
  const elem = (x: number): string => pb === 8 ? `((unsigned long long)w[${2 * x + 1}] << 32 | w[${2 * x}])`
    : pb === 4 ? `w[${x}]` : pb === 2 ? `(unsigned short)(w[${x >> 1}] >> ${16 * (x & 1)})` : `(unsigned char)(w[${x >> 2}] >> ${8 * (x & 3)})`;
  return `  if (!kout && !vout && (pf & 4u) && ((unsigned long long)in_ & ${pb - 1}ull) == 0) {
    // Histogram only: ${U} 16-byte loads a thread in flight, no bounds checks but on the last
    // partial tile; nothing stored (the stage's first pass reads the input).
    unsigned int* const shc = sh + copy;
    auto add = [&](const ${K} key) {${range ? `
      klo = key < klo ? key : klo;
      khi = key > khi ? key : khi;` : ''}
      #pragma unroll
      for (int q = 0; q < ${kb}; q++) atomicAdd(&shc[((q << 8) + (unsigned int)((key >> (8 * q)) & 255u)) * ${C}], 1u);
    };
    auto addv = [&](const uint4 v) {
      const unsigned int w[4] = {v.x, v.y, v.z, v.w};
${Array.from({ length: V }, (_, x) => `      add(nc_tf(${elem(x)}));`).join('\n')}
    };
    const unsigned int head = min(n, (unsigned int)((16u - ((unsigned int)(unsigned long long)in_ & 15u)) & 15u) / ${pb}u);
    const uint4* __restrict__ vin = reinterpret_cast<const uint4*>(in + head);
    const unsigned int nv = (n - head) / ${V}u;  // whole vectors after the head
    constexpr unsigned int T = 256u * ${U}u;  // vectors a tile (blocks of 256)
    unsigned int t = blockIdx.x * T + threadIdx.x;
    for (; t - threadIdx.x + T <= nv; t += gridDim.x * T) {  // whole tiles
      uint4 v[${U}];
      #pragma unroll
      for (int u = 0; u < ${U}; u++) v[u] = __ldg(vin + t + u * 256u);
      #pragma unroll
      for (int u = 0; u < ${U}; u++) addv(v[u]);
    }
    #pragma unroll
    for (int u = 0; u < ${U}; u++) if (t + u * 256u < nv) addv(__ldg(vin + t + u * 256u));  // the partial tile, if this block's
    if (blockIdx.x == gridDim.x - 1) {  // the head and the tail: fewer than ${V} elements each
      const unsigned int r = head + nv * ${V}u;
      if (threadIdx.x < head) add(nc_tf(in[threadIdx.x]));
      if (threadIdx.x < n - r) add(nc_tf(in[r + threadIdx.x]));
    }
  } else {
`;
}

/**
 * The `scanhist` kernel (one block of 256): digit starts, skipped passes and buffer selection.
 * info[q]: bit 0 skip, bit 1 source is buffer 1, bit 2 payload is the identity (not yet stored),
 * bit 3 the pass writes the final result (the last executed pass of the last stage), bit 4 the
 * keys are read from the input and transformed (`raw`: prep stored none; the first executed pass);
 * info[passes]: where the result is (bits 1, 2 and 4), bit 3 already written. Leaves the histograms zeroed.
 * With `range` (prep's least and greatest key, unique's sort) spanning at most `narrow` values:
 * every pass skipped and bit 3 set, so nothing runs (unique counts that input instead).
 */
export function scanHistKernel(): { source: string; name: string } {
  const name = 'nc_sort_scanhist';
  const source = `
extern "C" __global__ void __launch_bounds__(256) ${name}(unsigned int* __restrict__ hist, unsigned int* __restrict__ offs,
    unsigned int* __restrict__ info, const int passes, const unsigned int n, const int iota, const int last, const int raw,
    const unsigned long long* __restrict__ range, const unsigned long long narrow) {
  __shared__ unsigned int s_w[8];
  __shared__ int s_triv[${MAX_PASSES}];
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  for (int q = 0; q < passes; q++) {
    const unsigned int c = hist[q * 256 + t];
    hist[q * 256 + t] = 0;
    const int triv = __syncthreads_or(c == n);
    unsigned int x = c;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) { const unsigned int y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
    if (lane == 31) s_w[warp] = x;
    __syncthreads();
    unsigned int pre = 0;
    for (int w = 0; w < warp; w++) pre += s_w[w];
    offs[q * 256 + t] = pre + x - c;
    if (t == 0) s_triv[q] = triv;
    __syncthreads();
  }
  // unique's sort of a range of at most narrow values (prep's range): not needed, every pass
  // skipped and nothing written (unique counts instead).
  if (t == 0 && ${RANGE_COUNTED}) {
    for (int q = 0; q < passes; q++) info[q] = 1u;
    info[passes] = 8u;
  } else if (t == 0) {
    unsigned int sel = 0, io = iota ? 4u : 0u, rw = raw ? 16u : 0u;
    int lastq = -1;
    for (int q = 0; q < passes; q++) {
      if (s_triv[q]) { info[q] = 1u; continue; }
      info[q] = sel | io | rw;
      sel ^= 2u;
      io = 0;
      rw = 0;
      lastq = q;
    }
    // The last stage's last executed pass writes the result itself (bit 3); finish then has nothing to do.
    if (last && lastq >= 0) info[lastq] |= 8u;
    info[passes] = sel | io | rw | ((last && lastq >= 0) ? 8u : 0u);
  }
}`;
  return { source, name };
}

/**
 * The scatter `pass` kernel for keys of `kb` bytes, with or without a uint32 payload, of a sort of
 * `dt`: the pass flagged final (info bit 3) writes the result instead of the next buffers: the
 * un-transformed keys (keys only), or the values gathered by the payload and/or int64 indices.
 * From a SASS comparison with CUB's onesweep kernel (docs/sorting.md): the shared counts and match
 * words zeroed with unrolled 16-byte stores; keys past n padded with all ones after the transform
 * (digit 255 in every pass, ranked after every real key of the tile, so never stored, and counted
 * only into the last tile's published counts, which no tile reads), so the ranking and the
 * exchange test no key's validity; full tiles loaded and scattered without bounds checks; the
 * digit taken with one byte permute.
 */
export function passKernel(dt: DType, kb: number, vals: boolean): { source: string; name: string } {
  const K = uintC(kb);
  const name = `nc_sort_pass_${tag(dt)}_k${kb}${vals ? '_v' : ''}`;
  const S = dt.storageC;
  const B = passBlock(kb, vals);
  const IT = sortItems(kb, vals);
  const W = B / 32;
  const xb = exchangeBytes(kb, vals);
  // 512 threads: 16-bit per-warp digit counts and starts (at most a tile, < 65536), so the counts
  // and the exchange fit the 48 KiB of static shared memory (32-bit with early counts, whose atomics
  // need them: the exchange is capped at 28 KiB instead); only threads below 256 own a digit.
  const CNT = B > 256 && !EARLY ? 'unsigned short' : 'unsigned int';
  const digitsOnly = (code: string): string => (B > 256 ? `if (t < 256) {${code}\n  }` : code.replace(/^\n/, ''));
  // The digit sections (thread t < 256 is digit t): its index and look-back word; its count in the
  // tile from the warps' counts (each becomes the keys of the digit before that warp's) and their
  // publication; the run starts; the look-back for the digit's global start.
  const digitVars = `
  const unsigned int st = ${name}_ns::nc_sw(t);
  const unsigned long long e = (unsigned long long)(epoch & 0x3fffffffu) << 34;
  unsigned long long* mine = lb + (unsigned long long)tile * 256 + t;
  unsigned int tot = 0, x = 0;`;
  const countsA = `
  #pragma unroll
  for (int w = 0; w < ${W}; w++) { const unsigned int c = s_cnt[w][st]; s_cnt[w][st] = tot; tot += c; }
  // Publish this tile's count (inclusive already for tile 0): bits 63-34 epoch, 33-32 status, 31-0 value.
  *(volatile unsigned long long*)mine = e | ((tile == 0 ? 2ull : 1ull) << 32) | tot;
  x = tot;
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) { const unsigned int y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
  if (lane == 31) s_w[warp] = x;`;
  const startsB = `
  unsigned int pre = 0;
  for (int w = 0; w < warp; w++) pre += s_w[w];
  const unsigned int start = pre + x - tot;  // where digit t's run starts in the tile
  #pragma unroll
  for (int w = 0; w < ${W}; w++) s_cnt[w][st] += start;
  // The digit's global position less its tile start (mod 2^32; the look-back adds the keys before this tile).
  s_gbase[st] = offs[pass * 256 + t] - start;`;
  const lookBack = `
  // Look back: sum the predecessors' counts of digit t until one publishes an inclusive prefix.
  unsigned int excl = 0;
  if (tile > 0) {
    long long j = (long long)tile - 1;
    while (true) {
      unsigned long long w;
      do {
        w = *(volatile unsigned long long*)(lb + (unsigned long long)j * 256 + t);
      } while ((unsigned int)(w >> 34) != (epoch & 0x3fffffffu) || ((w >> 32) & 3ull) == 0);
      excl += (unsigned int)w;
      if (((w >> 32) & 3ull) == 2ull) break;
      j--;
    }
    *(volatile unsigned long long*)mine = e | (2ull << 32) | (excl + tot);
  }
  s_gbase[st] += excl;  // plus a tile position: the global one`;
  // The per-warp counts (and with atomic ranking the match words, as many 32-bit words) zeroed
  // with 16-byte stores, a whole number a thread (sizeof(CNT) / 2 and 2).
  const zero = `
  {
    const uint4 z = make_uint4(0u, 0u, 0u, 0u);
    #pragma unroll
    for (int k = 0; k < ${(W * 256 * (CNT === 'unsigned int' ? 4 : 2)) / 16 / B}; k++) reinterpret_cast<uint4*>(&s_cnt[0][0])[k * ${B} + t] = z;${
  RANK === 'atomic' ? `
    #pragma unroll
    for (int k = 0; k < ${(W * 256 * 4) / 16 / B}; k++) reinterpret_cast<uint4*>(s_x)[k * ${B} + t] = z;` : ''}
  }`;
  // The digit of key `k` in this pass: one byte permute (1-byte keys have one pass: the key itself).
  const dig = (k: string): string => (kb === 1 ? `(unsigned int)${k}`
      : kb === 8 ? `__byte_perm(hi ? (unsigned int)(${k} >> 32) : (unsigned int)${k}, 0u, psel)`
        : `__byte_perm((unsigned int)${k}, 0u, psel)`);
  // The scatter loops over a thread's tile positions s = j * B + t below cnt (the keys' with
  // `keyBody`, the payloads' with `valBody`); a full tile's without the bound (a block-uniform branch).
  const scatter = (body: string): string => {
    const guarded = `
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const unsigned int s = j * ${B} + t;
    if (s < cnt) {${body}
    }
  }`;
    return `
  if (cnt == TILE) {
    #pragma unroll
    for (int j = 0; j < IT; j++) {
      const unsigned int s = j * ${B} + t;${body}
    }
  } else {${guarded.replace(/\n/g, '\n  ')}
  }`;
  };
  const keyBody = `
      const ${K} kk = sk[s];
      const unsigned int d = ${dig('kk')};
      gpos[j] = s_gbase[${name}_ns::nc_sw(d)] + s;${vals ? `
      if (!fin_pass) kout[gpos[j]] = kk;` : `
      if (fin_pass) reinterpret_cast<${K}*>(fout_)[gpos[j]] = ${name}_ns::nc_untf(kk);
      else kout[gpos[j]] = kk;`}`;
  const valBody = `
      const unsigned int p = sv[s];
      if (!fin_pass) vout[gpos[j]] = p;
      else {
        ${S}* fout = reinterpret_cast<${S}*>(fout_);
        if (fout) fout[gpos[j]] = fin[p];
        if (fidx) fidx[gpos[j]] = (long long)(p % len);
      }`;
  const source = `
namespace ${name}_ns {${transforms(dt, kb)}
// Index of digit d (< 256) in the shared digit arrays: ${SWIZZLE ? 'digits 32 apart (same bank) spread over 8 banks (d >> 5 is 0..7: only the low 3 bits change, a permutation)' : 'the digit'}.
__device__ __forceinline__ unsigned int nc_sw(unsigned int d) { return ${SWIZZLE ? 'd ^ (d >> 5)' : 'd'}; }
}
extern "C" __global__ void __launch_bounds__(${B}, ${PASS_BLOCKS}) ${name}(${K}* k0, ${K}* k1, unsigned int* v0, unsigned int* v1,
    const unsigned int* __restrict__ info, const unsigned int* __restrict__ offs, unsigned long long* lb,
    unsigned int* ticket, const unsigned int n, const int pass, const unsigned int epoch,
    const ${S}* __restrict__ fin, void* __restrict__ fout_, long long* __restrict__ fidx, const unsigned int len) {
  const unsigned int inf = info[pass];
  if (inf & 1u) return;  // every key has the same digit here: nothing moves
  const bool b1 = (inf & 2u) != 0;
  const bool fin_pass = (inf & 8u) != 0;  // write the result, not the next buffers
  (void)fin; (void)fidx; (void)len;
  const ${K}* kin = b1 ? k1 : k0;
  ${K}* kout = b1 ? k0 : k1;
  (void)v0; (void)v1;
  constexpr int IT = ${IT}, TILE = ${B * IT};
  __shared__ __align__(16) ${CNT} s_cnt[${W}][256];  // per-warp digit counts, then where each warp's keys of the digit start in the tile
  __shared__ unsigned int s_gbase[256];      // global position of the digit's first key of this tile less its tile start
  __shared__ unsigned int s_w[8];  // the digit warps' totals (threads below 256)
  __shared__ unsigned int s_tile;
  __shared__ __align__(16) unsigned char s_x[${Math.max(B * IT * xb, RANK === 'atomic' ? W * 256 * 4 : 0)}];  // the exchange (atomic ranking: match words first)
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;${zero}
  if (t == 0) {
    s_tile = atomicAdd(ticket, 1u);  // tiles in start order: every predecessor is running or done
    if (s_tile == gridDim.x - 1) *ticket = 0;  // the last ticket: leave the counter zeroed
  }
  __syncthreads();
  const unsigned int tile = s_tile;
  const unsigned long long base = (unsigned long long)tile * TILE;
  const unsigned long long wbase = base + (unsigned long long)warp * 32 * IT;  // this warp's contiguous chunk
  // Keys of the chunk that exist: item j of this lane is valid when j * 32 + lane < rem (32-bit compares).
  const unsigned int rem = wbase >= n ? 0u : n - wbase >= 32ull * IT ? 32u * IT : (unsigned int)(n - wbase);
  // The digit (see dig): byte pass % 4 of the key's half, by one byte permute (the rest from 0u's zero bytes).
  const unsigned int psel = 0x4440u + (unsigned int)(pass & 3);${kb === 8 ? `
  const bool hi = pass >= 4;  // the key's high half` : kb === 1 ? `
  (void)psel;` : ''}
  ${K} key[IT];
  unsigned int rk[IT];${vals ? `
  const bool iota = (inf & 4u) != 0;
  const unsigned int* vin = b1 ? v1 : v0;
  unsigned int* vout = b1 ? v0 : v1;
  unsigned int val[IT];` : ''}
  // The stage's first pass with raw set reads the input and transforms it here. One load a key
  // from either pointer (a branch between two loads kept them from going out together).
  const bool raw = (inf & 16u) != 0;
  // A full chunk (every warp of a tile but the last's) without the bound (a warp-uniform branch).
  const ${K}* src = (raw ? reinterpret_cast<const ${K}*>(fin) : kin) + wbase + lane;
  if (rem == 32u * IT) {
    #pragma unroll
    for (int j = 0; j < IT; j++) key[j] = src[j * 32];
  } else {
    #pragma unroll
    for (int j = 0; j < IT; j++) key[j] = j * 32 + lane < rem ? src[j * 32] : (${K})0;
  }
  if (raw) {
    #pragma unroll
    for (int j = 0; j < IT; j++) key[j] = ${name}_ns::nc_tf(key[j]);
  }
  // Keys past n (the last tile's): all ones after the transform, digit 255 in every pass, so they
  // rank after every real key of the tile (stable: they come last), at tile positions from cnt on,
  // and are never stored; only the last tile's published count of digit 255 includes them, which
  // no tile reads (the look-back reads predecessors).
  if (rem < 32u * IT) {
    #pragma unroll
    for (int j = 0; j < IT; j++) if (j * 32 + lane >= rem) key[j] = (${K})~(${K})0;
  }${vals ? `
  {
    const unsigned int* vs = vin + wbase + lane;
    const unsigned int i0 = (unsigned int)wbase + lane;  // the identity payload (indices below 2^32)
    if (rem == 32u * IT) {
      #pragma unroll
      for (int j = 0; j < IT; j++) val[j] = iota ? i0 + j * 32 : vs[j * 32];
    } else {
      #pragma unroll
      for (int j = 0; j < IT; j++) val[j] = j * 32 + lane < rem ? (iota ? i0 + j * 32 : vs[j * 32]) : 0u;
    }
  }` : ''}
${EARLY ? `  // Early counts: the warps' counts of each digit, then the digit scans (each warp's count becomes
  // where its keys of the digit start in the tile) and the tile's counts published, before the ranking.
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    atomicAdd(&s_cnt[warp][${name}_ns::nc_sw(${dig('key[j]')})], 1u);
  }
  __syncthreads();
  // Thread t is digit t in the digit sections (at index st of the shared digit arrays).${digitVars}
  ${digitsOnly(countsA)}
  __syncthreads();
  ${digitsOnly(startsB)}
  __syncthreads();
` : ''}  // Stable warp ranking: item j of lane l comes after items < j and after lanes < l at item j.
  // peers: the lanes holding the same digit at item j (see RANK); the highest of them advances
  // the warp's count of the digit (and clears the digit's match word).
  const unsigned int lt = (1u << lane) - 1u;${RANK === 'atomic' ? `
  unsigned int* s_match = reinterpret_cast<unsigned int*>(s_x) + warp * 256;  // zeroed above; s_x is free until the exchange` : ''}
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const bool valid = true;  // keys past n are padded
    const unsigned int d = ${dig('key[j]')};
    const unsigned int sd = ${name}_ns::nc_sw(d);${RANK === 'atomic' ? `
    if (valid) atomicOr(&s_match[sd], 1u << lane);
    __syncwarp();
    const unsigned int peers = valid ? s_match[sd] : 0u;
    const int leader = 31 - __clz(peers);  // -1 for an invalid lane (peers 0)
    __syncwarp();
    unsigned int c = 0;
    if (lane == leader) { c = s_cnt[warp][sd]; s_cnt[warp][sd] = c + __popc(peers); s_match[sd] = 0u; }
    c = __shfl_sync(0xffffffffu, c, leader & 31);  // the leader's count before its peers
    rk[j] = c + __popc(peers & lt);
    __syncwarp();` : `
    unsigned int peers = __ballot_sync(0xffffffffu, valid);
    #pragma unroll
    for (int b = 0; b < 8; b++) {
      const unsigned int on = __ballot_sync(0xffffffffu, (d >> b) & 1u);
      peers &= ((d >> b) & 1u) ? on : ~on;
    }
    const unsigned int c = valid ? s_cnt[warp][sd] : 0u;
    __syncwarp();
    rk[j] = c + __popc(peers & lt);
    if (valid && lane == 31 - __clz(peers)) s_cnt[warp][sd] = c + __popc(peers);
    __syncwarp();`}
  }
  __syncthreads();${EARLY ? `
  // Exchange through shared memory: keys to their tile positions (the ranks), then read back in order.
  ${K}* sk = reinterpret_cast<${K}*>(s_x);
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    sk[rk[j]] = key[j];
  }
  ${digitsOnly(lookBack)}` : `
  // Thread t is digit t from here (at index st of the shared digit arrays): its count in the tile, the warps' starts, the run starts.${digitVars}
  ${digitsOnly(countsA)}
  __syncthreads();
  ${digitsOnly(startsB + lookBack)}
  __syncthreads();
  // Exchange through shared memory: keys to their tile positions, then read back in order.
  ${K}* sk = reinterpret_cast<${K}*>(s_x);
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const unsigned int d = ${dig('key[j]')};
    rk[j] += s_cnt[warp][${name}_ns::nc_sw(d)];
    sk[rk[j]] = key[j];
  }`}
  __syncthreads();
  const unsigned int cnt = n - base < (unsigned long long)TILE ? (unsigned int)(n - base) : (unsigned int)TILE;
  unsigned int gpos[IT];${scatter(keyBody)}${vals ? `
  __syncthreads();
  unsigned int* sv = reinterpret_cast<unsigned int*>(s_x);
  #pragma unroll
  for (int j = 0; j < IT; j++) sv[rk[j]] = val[j];
  __syncthreads();${scatter(valBody)}` : ''}
}`;
  return { source, name };
}

/** Grid-stride loop header over `n` (unsigned long long i). */
const LOOP = `for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x)`;

/** The `finish` kernel writing un-transformed keys (keys-only sorts of real dtypes). */
export function finishKeysKernel(dt: DType): { source: string; name: string } {
  const kb = keyBytes(dt, 'value');
  const K = uintC(kb);
  const name = `nc_sort_finish_keys_${tag(dt)}`;
  const source = `
namespace ${name}_ns {${transforms(dt, dt.bytes)}
}
extern "C" __global__ void __launch_bounds__(256) ${name}(const ${K}* k0, const ${K}* k1, const unsigned int* __restrict__ info,
    void* __restrict__ out_, const unsigned int n, const void* __restrict__ in_) {
  using namespace ${name}_ns;
  const unsigned int f = *info;
  if (f & 8u) return;  // the last pass wrote the result
  ${K}* out = reinterpret_cast<${K}*>(out_);
  if (f & 16u) {  // every pass skipped and no keys stored: all keys are equal, the input is sorted
    const ${K}* in = reinterpret_cast<const ${K}*>(in_);
    ${LOOP} out[i] = in[i];
    return;
  }
  const ${K}* kin = (f & 2u) ? k1 : k0;
  ${LOOP} out[i] = nc_untf(kin[i]);
}`;
  return { source, name };
}

/** The `finish` kernel of payload sorts: values gathered by the payload and/or indices within the row. */
export function finishPayloadKernel(dt: DType): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_sort_finish_pay_${tag(dt)}`;
  const source = `
extern "C" __global__ void __launch_bounds__(256) ${name}(const unsigned int* v0, const unsigned int* v1,
    const unsigned int* __restrict__ info, const ${S}* __restrict__ in, ${S}* __restrict__ out, long long* __restrict__ idx,
    const unsigned int n, const unsigned int len) {
  const unsigned int f = *info;
  if (f & 8u) return;  // the last pass wrote the result
  const unsigned int* pv = (f & 2u) ? v1 : v0;
  ${LOOP} {
    const unsigned int p = (f & 4u) ? (unsigned int)i : pv[i];
    if (out) out[i] = in[p];
    if (idx) idx[i] = (long long)(p % len);
  }
}`;
  return { source, name };
}

/** searchsorted: one thread per value, binary search in `a` (through `sorter` when given), NaN last. */
export function searchKernel(da: DType, dv: DType, common: DType): { source: string; name: string } {
  const C = common.computeC;
  const name = `nc_searchsorted_${tag(da)}_${tag(dv)}_${tag(common)}`;
  const source = `
namespace ${name}_ns {
template <typename T> __device__ __forceinline__ bool nc_lt(T x, T y) { return x < y || (x == x && y != y); }
template <typename R> __device__ __forceinline__ bool nc_lt(nc_complex<R> x, nc_complex<R> y) {
  return nc_lt(x.re, y.re) || (!nc_lt(y.re, x.re) && nc_lt(x.im, y.im));
}
__device__ __forceinline__ bool nc_lt(bool x, bool y) { return !x && y; }
}
extern "C" __global__ void __launch_bounds__(256) ${name}(const ${da.storageC}* __restrict__ a,
    const long long* __restrict__ sorter, const ${dv.storageC}* __restrict__ v, long long* __restrict__ out,
    const long long na, const unsigned long long n, const int right) {
  using namespace ${name}_ns;
  ${LOOP} {
    const ${C} x = NC_TO(${C}, nc_load(v[i]));
    long long lo = 0, hi = na;
    while (lo < hi) {
      const long long m = (lo + hi) >> 1;
      long long at = m;
      if (sorter) { at = sorter[m]; at = at < 0 ? 0 : at >= na ? na - 1 : at; }  // out-of-range sorter entries are clamped
      const ${C} y = NC_TO(${C}, nc_load(a[at]));
      if (right ? !nc_lt(x, y) : nc_lt(y, x)) lo = m + 1; else hi = m;
    }
    out[i] = lo;
  }
}`;
  return { source, name };
}

/** The key stages a dtype's sorts use (complex128: imaginary then real part; 'row' for axis sorts). */
export function stageKinds(dt: DType): KeyKind[] {
  return dt.bytes === 16 ? ['im', 're', 'row'] : ['value', 'row'];
}

/** Every kernel the sort family builds for `dt` (codegen tests and the prebuilt catalog). */
export function sortKernelsFor(dt: DType): Array<{ source: string; name: string }> {
  const ks = stageKinds(dt).filter((k) => k !== 'row').map((k) => prepKernel(dt, k));
  if ((dt.kind === 'i' || dt.kind === 'u') && dt.bytes >= 4) ks.push(prepKernel(dt, 'value', true));  // unique's
  if (dt.kind !== 'c') ks.push(finishKeysKernel(dt), passKernel(dt, keyBytes(dt, 'value'), false));
  for (const kb of new Set(stageKinds(dt).map((k) => keyBytes(dt, k)))) ks.push(passKernel(dt, kb, true));
  ks.push(finishPayloadKernel(dt), searchKernel(dt, dt, dt));
  for (const equalNan of [true, false]) ks.push(uniqueCountKernel(dt, equalNan), uniqueResultKernel(dt, equalNan));
  // unique's counting path (integers, bool); its min/max is a reduction (templates/reduction.ts).
  if ('biu'.includes(dt.kind)) ks.push(uniqueHistKernel(dt), uniqueBinsResultKernel(dt), uniqueInverseKernel(dt));
  return ks;
}

/** The dtype-independent kernels: scanhist, the row keys' prep, unique counts, the occupied bins count. */
export function sortCommonKernels(): Array<{ source: string; name: string }> {
  const ks = [scanHistKernel(), uniqueCountsKernel(), prepKernel(DTYPES.uint32, 'row'), uniqueBinsCountKernel()];
  return ks;
}
