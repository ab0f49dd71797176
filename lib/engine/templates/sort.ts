/**
 * The sort kernel family (CUDA C source; needs PREAMBLE before it): an LSD radix sort on keys
 * transformed to unsigned integers (8-bit digits, one pass per digit, "onesweep" structure):
 *
 * - `prep` reads the input (or the previous stage's payload), writes the transformed keys (and the
 *   payload) and counts the digits of every pass at once into global histograms;
 * - `scanhist` (one block) turns those histograms into each digit's global start, finds the passes
 *   whose digit is the same for every key (skipped: one bin holds n) and writes per pass which
 *   ping-pong buffer is the source, so the host never reads anything back;
 * - `pass` (one per digit, sort_pass.ts): tiles of keys taken in ticket order, ranked per warp,
 *   positioned globally by a decoupled look-back over the predecessors' published digit counts,
 *   and written as coalesced runs through a shared-memory exchange;
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
import { KeyKind, MAX_PASSES, gridLoop, keyBytes, tag, transforms, uintC } from './sort_keys';
import { passKernel } from './sort_pass';
import { rowSortKernel } from './sort_rows';
import { selectKernelsFor } from './select';
import { quantileKernelsFor } from './quantile';
import { bitmapKernelsFor, bitmapScanKernel } from './unique_bitmap';
import { compactCountKernel, compactScanKernel, compactWriteKernel } from './compact';
import {
  RANGE_COUNTED, uniqueBinsCountKernel, uniqueBinsResultKernel, uniqueCountKernel, uniqueCountsKernel, uniqueHistKernel,
  uniqueInverseKernel, uniqueResultKernel,
} from './unique';

export type { KeyKind } from './sort_keys';
export { MAX_PASSES, keyBits, keyBytes, uintC } from './sort_keys';
export { passBlock, passKernel, sortItems, sortTile } from './sort_pass';

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
 * every pass skipped and bit 3 set, so nothing runs (unique counts that input instead). The first
 * `low` passes are skipped in any case (unique's bitmaps: the keys sorted by their top digits only).
 */
export function scanHistKernel(): { source: string; name: string } {
  const name = 'nc_sort_scanhist';
  const source = `
extern "C" __global__ void __launch_bounds__(256) ${name}(unsigned int* __restrict__ hist, unsigned int* __restrict__ offs,
    unsigned int* __restrict__ info, const int passes, const unsigned int n, const int iota, const int last, const int raw,
    const unsigned long long* __restrict__ range, const unsigned long long narrow, const int low) {
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
      if (s_triv[q] || q < low) { info[q] = 1u; continue; }
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

/** Grid-stride loop header over `n` (unsigned long long i). */
const LOOP = gridLoop('n');

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

/**
 * searchsorted in two steps. Each block first copies every s-th element of `a` (through `sorter`
 * when given) into shared memory: at most 16 KiB of samples, s the smallest power of two that fits
 * (1 for a small `a`, which is then searched in shared memory alone). A value's search runs over
 * the samples, then over the window of at most s elements of `a` between two samples, so the
 * random loads from `a` are log2(s) instead of log2(na), most of them in one or two cache lines.
 * Both searches are branch-free with trip counts that depend on the lengths only (Khuong and
 * Morin's form: `base` moves by `half` while the interval shrinks). The loops over Q interleave
 * the loads of Q values a thread; Q is 1: on an H200 (2^24 float32 values into 2^20 keys, npm run
 * bench) 1.02–1.03× torch.searchsorted (the plain binary search it replaces: 1.00×), 1.00× with
 * Q = 2, 0.92× with 4. 32-bit indices when `a` has fewer than 2^31 elements. NaN last.
 */
export function searchKernel(da: DType, dv: DType, common: DType): { source: string; name: string } {
  const C = common.computeC;
  const A = da.storageC;
  const name = `nc_searchsorted_${tag(da)}_${tag(dv)}_${tag(common)}`;
  const source = `
namespace ${name}_ns {
template <typename T> __device__ __forceinline__ bool nc_lt(T x, T y) { return x < y || (x == x && y != y); }
template <typename R> __device__ __forceinline__ bool nc_lt(nc_complex<R> x, nc_complex<R> y) {
  return nc_lt(x.re, y.re) || (!nc_lt(y.re, x.re) && nc_lt(x.im, y.im));
}
__device__ __forceinline__ bool nc_lt(bool x, bool y) { return !x && y; }
constexpr int NS = 16384 / sizeof(${C});  // samples in shared memory
// a[at], through the sorter (its out-of-range entries are clamped).
template <typename I> __device__ __forceinline__ ${C} nc_at(const ${A}* __restrict__ a, const long long* __restrict__ sorter,
    I at, I na) {
  if (sorter) { const long long s = sorter[at]; at = s < 0 ? 0 : s >= (long long)na ? na - 1 : (I)s; }
  return NC_TO(${C}, nc_load(a[at]));
}
// True when the insertion point of x lies after y: y < x (left), y <= x (right).
template <bool RIGHT> __device__ __forceinline__ bool nc_after(${C} y, ${C} x) { return RIGHT ? !nc_lt(x, y) : nc_lt(y, x); }
template <typename I, bool RIGHT> __device__ __forceinline__ void nc_search(const ${A}* __restrict__ a,
    const long long* __restrict__ sorter, const ${dv.storageC}* __restrict__ v, long long* __restrict__ out, const I na,
    const unsigned long long n, ${C}* smp) {
  constexpr int Q = 1;
  I s = 1;  // sample stride: a power of two, at most NS samples
  if (na > 0) while ((na - 1) / s + 1 > (I)NS) s <<= 1;
  const I ns = na == 0 ? 0 : (na - 1) / s + 1;
  for (I j = threadIdx.x; j < ns; j += blockDim.x) smp[j] = nc_at(a, sorter, j * s, na);
  __syncthreads();
  const unsigned long long T = (unsigned long long)gridDim.x * blockDim.x;
  for (unsigned long long i0 = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i0 < n; i0 += Q * T) {
    ${C} x[Q];
    I base[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
      const unsigned long long i = i0 + q * T;
      x[q] = NC_TO(${C}, nc_load(v[i < n ? i : i0]));
      base[q] = 0;
    }
    // Samples: base = the last sample the insertion point lies after (or 0).
    for (I len = ns; len > 1;) {
      const I half = len >> 1;
#pragma unroll
      for (int q = 0; q < Q; q++) base[q] += nc_after<RIGHT>(smp[base[q] + half], x[q]) ? half : 0;
      len -= half;
    }
    bool past[Q];  // the insertion point lies after sample base[q]
    I lo[Q];
#pragma unroll
    for (int q = 0; q < Q; q++) {
      past[q] = ns > 0 && nc_after<RIGHT>(smp[base[q]], x[q]);
      lo[q] = base[q] * s + (past[q] ? 1 : 0);  // the window a[lo, lo + len) holds the insertion point or ends at it
    }
    // The window a[lo, lo + s - 1): the same search, with the predicate false past na (and for a
    // value before every sample), so that every value takes the same trip count.
    for (I len = s - 1; len > 0;) {
      const I half = len > 1 ? len >> 1 : 0;
#pragma unroll
      for (int q = 0; q < Q; q++) {
        const I at = lo[q] + half;
        if (past[q] && at < na && nc_after<RIGHT>(nc_at(a, sorter, at, na), x[q])) lo[q] = at + (half ? 0 : 1);
      }
      len = half ? len - half : 0;
    }
#pragma unroll
    for (int q = 0; q < Q; q++) {
      const unsigned long long i = i0 + q * T;
      if (i < n) out[i] = (long long)lo[q];
    }
  }
}
}
extern "C" __global__ void __launch_bounds__(256) ${name}(const ${A}* __restrict__ a,
    const long long* __restrict__ sorter, const ${dv.storageC}* __restrict__ v, long long* __restrict__ out,
    const long long na, const unsigned long long n, const int right) {
  using namespace ${name}_ns;
  __shared__ ${C} smp[NS];
  if (na < 0x80000000LL) {
    if (right) nc_search<unsigned int, true>(a, sorter, v, out, (unsigned int)na, n, smp);
    else nc_search<unsigned int, false>(a, sorter, v, out, (unsigned int)na, n, smp);
  } else {
    if (right) nc_search<unsigned long long, true>(a, sorter, v, out, (unsigned long long)na, n, smp);
    else nc_search<unsigned long long, false>(a, sorter, v, out, (unsigned long long)na, n, smp);
  }
}`;
  return { source, name };
}

/** The key stages a dtype's sorts use (complex128: imaginary then real part; 'row' for axis sorts). */
export function stageKinds(dt: DType): KeyKind[] {
  return dt.bytes === 16 ? ['im', 're', 'row'] : ['value', 'row'];
}

/** Every kernel the sort family builds for `dt` (codegen tests; topk's selection, the quantiles and nonzero's compaction among them). */
export function sortKernelsFor(dt: DType): Array<{ source: string; name: string }> {
  const ks = stageKinds(dt).filter((k) => k !== 'row').map((k) => prepKernel(dt, k));
  if ((dt.kind === 'i' || dt.kind === 'u') && dt.bytes >= 4) ks.push(prepKernel(dt, 'value', true));  // unique's
  if ((dt.kind === 'i' || dt.kind === 'u') && dt.bytes === 4) ks.push(...bitmapKernelsFor(dt));  // unique's values by bitmaps
  if (dt.kind !== 'c') {
    ks.push(finishKeysKernel(dt), passKernel(dt, keyBytes(dt, 'value'), false), rowSortKernel(dt), ...selectKernelsFor(dt),
      ...quantileKernelsFor(dt, DTYPES.float64));
  }
  for (const kb of new Set(stageKinds(dt).map((k) => keyBytes(dt, k)))) ks.push(passKernel(dt, kb, true));
  ks.push(finishPayloadKernel(dt), searchKernel(dt, dt, dt));
  ks.push(compactCountKernel(dt), compactWriteKernel(dt, null), compactWriteKernel(dt, dt));
  for (const equalNan of [true, false]) ks.push(uniqueCountKernel(dt, equalNan), uniqueResultKernel(dt, equalNan));
  // unique's counting path (integers, bool); its min/max is a reduction (templates/reduction.ts).
  if ('biu'.includes(dt.kind)) ks.push(uniqueHistKernel(dt), uniqueBinsResultKernel(dt), uniqueInverseKernel(dt));
  return ks;
}

/** The dtype-independent kernels: scanhist, the row keys' prep, unique counts, the occupied bins count. */
export function sortCommonKernels(): Array<{ source: string; name: string }> {
  const ks = [scanHistKernel(), uniqueCountsKernel(), prepKernel(DTYPES.uint32, 'row'), uniqueBinsCountKernel(), compactScanKernel(),
    bitmapScanKernel()];
  return ks;
}
