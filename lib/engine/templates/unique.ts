/**
 * unique's kernels (CUDA C source; need PREAMBLE before them): a two-kernel compaction of the
 * sorted array into its runs.
 *
 * - `count`: block b owns the contiguous chunk [b × chunk, (b + 1) × chunk) (chunk a multiple of
 *   UNIQUE_ROUND) and counts the run heads in it (an element unequal to the one before it): the
 *   block's count goes to `bcount[b]` and is added to `*count`, the total the host reads back to
 *   size the results;
 * - `result`: the same grid and chunks. Block b's first run number is the sum of `bcount[0..b)`;
 *   it walks its chunk in rounds of 256 threads × 4 consecutive elements (head flags, a block
 *   exclusive scan of the per-thread head counts) and writes each head's value, first index and
 *   start at its run number, and every element's run number (the inverse).
 *
 * Deterministic (no ticket, no look-back): the chunks' order is the blocks' order. Both kernels
 * read the sorted array once each (it replaces one scan through the generic scan engine, which was
 * bound by instruction issue). Without an inverse to write, the result kernel of a chunk without
 * heads exits at once and the others stop after their chunk's last head.
 */
import { DType } from '../../base/dtype';

/** Threads of a block; each takes 4 consecutive elements a round. */
const BLOCK = 256;
/** Elements a block covers in one round (chunks are multiples of it). */
export const UNIQUE_ROUND = BLOCK * 4;

const suffix = (dt: DType, equalNan: boolean): string => `${dt.name}${equalNan ? '_eqnan' : ''}`;

/**
 * Device helpers of a dtype: `same(x, y)` (one run: equal, or both NaN when `equalNan`), `load`
 * (4 consecutive elements and the one before), `heads` (their head flags as bits), `block_sum`.
 */
function helpers(dt: DType, equalNan: boolean): string {
  const S = dt.storageC;
  const C = dt.computeC;
  // The 4 elements load as one nc_vec (4, 8, 16 bytes; 32 and 64 as 16-byte pieces) when the
  // array is aligned to it: chunk and round starts are multiples of 4 elements, so every full
  // group is. The element before the group is a load of its own (the previous thread's last
  // element: a cache hit, mostly).
  const align = Math.min(16, 4 * dt.bytes);
  return `
__device__ __forceinline__ bool same(${C} x, ${C} y) { return x == y${equalNan ? ' || (nc_isnan(x) && nc_isnan(y))' : ''}; }
__device__ __forceinline__ bool vec_ok(const void* p) { return ((unsigned long long)p & ${align - 1}ull) == 0; }
// x: elements i..i + 3, p: element i - 1 (element 0 when i is 0). load_vec: all four in range, vec.
__device__ __forceinline__ void load_vec(const ${S}* __restrict__ s, unsigned long long i, ${S} (&x)[4], ${S}& p) {
  p = s[i > 0 ? i - 1 : 0];
  const nc_vec<${S}, 4> v = *reinterpret_cast<const nc_vec<${S}, 4>*>(s + i);
  #pragma unroll
  for (int j = 0; j < 4; j++) x[j] = v.v[j];
}
__device__ __forceinline__ void load(const ${S}* __restrict__ s, unsigned long long i, unsigned long long end, bool vec,
    ${S} (&x)[4], ${S}& p) {
  if (i >= end) return;
  if (vec && i + 4 <= end) return load_vec(s, i, x, p);
  p = s[i > 0 ? i - 1 : 0];
  #pragma unroll
  for (int j = 0; j < 4; j++) x[j] = s[i + j < end ? i + j : i];
}
// Bit j set: element i + j (< end) starts a run (x and p as load left them).
__device__ __forceinline__ unsigned int heads(unsigned long long i, unsigned long long end, const ${S} (&x)[4], ${S} p) {
  if (i >= end) return 0u;
  unsigned int m = (i == 0 || !same(nc_load(p), nc_load(x[0]))) ? 1u : 0u;
  #pragma unroll
  for (int j = 1; j < 4; j++) if (i + j < end && !same(nc_load(x[j - 1]), nc_load(x[j]))) m |= 1u << j;
  return m;
}
// The block's total of v, in every thread (sw: 8 words of shared memory, not used again before a barrier).
__device__ __forceinline__ unsigned int block_sum(unsigned int v, unsigned int* sw) {
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) sw[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned int t = 0;
  #pragma unroll
  for (int w = 0; w < ${BLOCK / 32}; w++) t += sw[w];
  return t;
}`;
}

/** unique, first kernel: run heads per chunk into `bcount[b]`, their total added to `*count` (zeroed before). */
export function uniqueCountKernel(dt: DType, equalNan: boolean): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_count_${suffix(dt, equalNan)}`;
  const source = `
namespace ${name}_ns {${helpers(dt, equalNan)}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const ${S}* __restrict__ s, unsigned int* __restrict__ count,
    unsigned int* __restrict__ bcount, const unsigned long long n, const unsigned long long chunk) {
  using namespace ${name}_ns;
  __shared__ unsigned int s_w[${BLOCK / 32}];
  const unsigned long long start = (unsigned long long)blockIdx.x * chunk;
  const unsigned long long end = start + chunk < n ? start + chunk : n;
  const bool vec = vec_ok(s);
  unsigned int c = 0;
  // Two rounds a step, their loads issued before any compare: four loads of each thread in
  // flight (this kernel is bound by DRAM; a branch between them would wait for the first).
  for (unsigned long long i = start + 4ull * threadIdx.x; i < end; i += ${2 * UNIQUE_ROUND}) {
    ${S} x[4], y[4], px, py;
    if (vec && i + ${UNIQUE_ROUND + 4} <= end) {
      load_vec(s, i, x, px);
      load_vec(s, i + ${UNIQUE_ROUND}, y, py);
    } else {
      load(s, i, end, vec, x, px);
      load(s, i + ${UNIQUE_ROUND}, end, vec, y, py);
    }
    c += __popc(heads(i, end, x, px)) + __popc(heads(i + ${UNIQUE_ROUND}, end, y, py));
  }
  c = block_sum(c, s_w);
  if (threadIdx.x == 0) {
    bcount[blockIdx.x] = c;
    if (c) atomicAdd(count, c);
  }
}`;
  return { source, name };
}

/**
 * unique, second kernel: each head writes its value to `vals`, its index (through `perm`, the
 * sort's int64 indices, when given) to `first` and its position to `starts` at its run number;
 * `inv[perm ? perm[i] : i]` gets element i's run number. Null pointers are skipped.
 */
export function uniqueResultKernel(dt: DType, equalNan: boolean): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_result_${suffix(dt, equalNan)}`;
  const source = `
namespace ${name}_ns {${helpers(dt, equalNan)}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const ${S}* __restrict__ s,
    const unsigned int* __restrict__ bcount, const long long* __restrict__ perm, ${S}* __restrict__ vals,
    long long* __restrict__ first, long long* __restrict__ starts, long long* __restrict__ inv,
    const unsigned long long n, const unsigned long long chunk) {
  using namespace ${name}_ns;
  __shared__ unsigned int s_b[${BLOCK / 32}];
  __shared__ unsigned int s_w[2][${BLOCK / 32}];  // warp totals, alternating rounds: one barrier a round
  const unsigned int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  // Without the inverse only heads write: a chunk without any is done, and the walk stops after
  // the chunk's last head (block-uniform: every thread sees the same run and mine).
  const unsigned int mine = bcount[blockIdx.x];
  if (!inv && mine == 0) return;
  const unsigned long long start = (unsigned long long)blockIdx.x * chunk;
  const unsigned long long end = start + chunk < n ? start + chunk : n;
  // Runs that start before this chunk (at most a few thousand counts, from L2).
  unsigned int before = 0;
  for (unsigned int b = t; b < blockIdx.x; b += ${BLOCK}) before += bcount[b];
  unsigned int run = block_sum(before, s_b);  // heads before this round
  const unsigned int last = run + mine;
  const bool vec = vec_ok(s), pvec = ((unsigned long long)perm & 15ull) == 0;
  unsigned int par = 0;
  for (unsigned long long r0 = start; r0 < end; r0 += ${UNIQUE_ROUND}, par ^= 1) {
    const unsigned long long i = r0 + 4ull * t;
    ${S} x[4], p;
    load(s, i, end, vec, x, p);
    const unsigned int m = heads(i, end, x, p);
    // Exclusive scan of the threads' head counts: warp shuffles, then the warp totals.
    const unsigned int c = __popc(m);
    unsigned int incl = c;
    #pragma unroll
    for (int o = 1; o < 32; o <<= 1) {
      const unsigned int y = __shfl_up_sync(0xffffffffu, incl, o);
      if (lane >= o) incl += y;
    }
    if (lane == 31) s_w[par][warp] = incl;
    __syncthreads();
    unsigned int wpre = 0, tot = 0;
    #pragma unroll
    for (int w = 0; w < ${BLOCK / 32}; w++) {
      const unsigned int v = s_w[par][w];
      wpre += (unsigned int)w < warp ? v : 0u;
      tot += v;
    }
    const unsigned int base = run + wpre + incl - c;  // heads before element i
    run += tot;
    if (i < end && (m || inv)) {
      long long q[4];  // the elements' input indices
      if (perm && pvec && i + 4 <= end) {
        const nc_vec<long long, 2> a = *reinterpret_cast<const nc_vec<long long, 2>*>(perm + i);
        const nc_vec<long long, 2> b = *reinterpret_cast<const nc_vec<long long, 2>*>(perm + i + 2);
        q[0] = a.v[0]; q[1] = a.v[1]; q[2] = b.v[0]; q[3] = b.v[1];
      } else {
        #pragma unroll
        for (int j = 0; j < 4; j++) q[j] = perm ? perm[i + j < end ? i + j : i] : (long long)(i + j);
      }
      unsigned int r = base;  // after element i + j's flag is counted: its run number + 1
      #pragma unroll
      for (int j = 0; j < 4; j++) {
        if (i + j >= end) break;
        if ((m >> j) & 1u) {
          if (vals) vals[r] = x[j];
          if (first) first[r] = q[j];
          if (starts) starts[r] = (long long)(i + j);
          r++;
        }
        if (inv) inv[q[j]] = (long long)r - 1;
      }
    }
    if (!inv && run == last) break;  // the chunk's last head is written
  }
}`;
  return { source, name };
}

/** unique: counts from the run starts (the source as it was in templates/sort.ts: shipped kernels still match). */
export function uniqueCountsKernel(): { source: string; name: string } {
  const name = 'nc_unique_counts';
  const source = `
extern "C" __global__ void __launch_bounds__(256) ${name}(const long long* __restrict__ starts, long long* __restrict__ counts,
    const unsigned long long n, const unsigned long long total) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) counts[i] = (i + 1 < n ? starts[i + 1] : (long long)total) - starts[i];
}`;
  return { source, name };
}
