/**
 * The short-row sort: rows of at most ROW_SORT_MAX elements (the axis a sort, argsort or topk works
 * along) sorted each inside one block, in one kernel, instead of the LSD radix sort's passes over
 * the whole array (templates/sort.ts, whose segmented form adds a stage keyed by the row).
 *
 * Each row is padded to N = 2^s elements (8 ≤ N ≤ 4096, a runtime parameter) and sorted by a
 * bitonic network over (key, column) pairs: the key is the radix sort's order-preserving transform
 * (sort_keys.ts: NaNs last and equal, -0.0 before +0.0), the column breaks ties, so the order is
 * total and the result is exactly the stable sort's; padding sorts last (all-ones key, a column
 * past the row). A thread holds 8 consecutive positions in registers: network steps between
 * positions less than 8 apart run in registers, up to 256 apart with warp shuffles, farther through
 * shared memory (skewed: conflict-free). A block holds 4096 positions (2048 for 8-byte keys), so
 * 4096 / N rows. Outputs: the values (gathered from the input by column, so NaN bits are kept;
 * in place, where the input is being overwritten, the keys transformed back, as the radix sort's
 * keys-only result: one quiet NaN), the int64 columns, or both; `outLen` < len keeps the first
 * `outLen` ranks of each row and `reverse` counts ranks from the end (topk's largest).
 */
import { DType } from '../../base/dtype';
import { envNumber } from '../../base/env';
import { tag, transforms, uintC } from './sort_keys';

/** Longest row the short-row sort takes (tuning: NODECUDA_SORT_ROWS_MAX; 0 disables it). */
export const ROW_SORT_MAX = envNumber('NODECUDA_SORT_ROWS_MAX', 4096, { min: 0, max: 4096 });
/** Shortest padded row. */
const MIN_N = 8;
const ITEMS = 8;

/** Threads of the short-row kernel for `dt`: 512 (4096 positions) or 256 for 8-byte keys (shared memory). */
export function rowSortThreads(dt: DType): number {
  return dt.bytes === 8 ? 256 : 512;
}

/** Whether rows of `len` elements of `dt` take the short-row sort (real dtypes; complex sort in two stages). */
export function rowSortable(dt: DType, len: number): boolean {
  return dt.kind !== 'c' && len <= Math.min(ROW_SORT_MAX, rowSortThreads(dt) * ITEMS);
}

/** log2 of the padded row length for rows of `len`. */
export function rowSortLog2(len: number): number {
  return Math.max(Math.log2(MIN_N), Math.ceil(Math.log2(Math.max(1, len))));
}

/**
 * The short-row kernel for `dt`: (src, vals | 0, idxs | 0, rows, len, outLen, reverse, log2N, gather),
 * grid ceil(rows × N / (threads × 8)), `rowSortThreads(dt)` threads.
 */
export function rowSortKernel(dt: DType): { source: string; name: string } {
  const T = rowSortThreads(dt);
  const U = uintC(dt.kind === 'b' ? 1 : dt.bytes);
  const K = dt.bytes === 8 ? 'unsigned long long' : 'unsigned int';
  const P = T * ITEMS;
  const name = `nc_rowsort_${tag(dt)}`;
  const source = `
namespace ${name}_ns {
${transforms(dt, dt.kind === 'b' ? 1 : dt.bytes)}
typedef ${K} K;
// (a, ia) after (b, ib): keys, then columns.
__device__ __forceinline__ bool nc_gt(K a, unsigned ia, K b, unsigned ib) { return a > b || (a == b && ia > ib); }
// Skewed shared index: thread t's 8 positions start at 9t, so a warp's accesses hit 32 banks.
__device__ __forceinline__ unsigned nc_sk(unsigned p) { return p + (p >> 3); }
// Positions e and e + J (J < 8) of this thread; c0: the thread's first column in its row.
template <int J> __device__ __forceinline__ void nc_reg(K (&k)[${ITEMS}], unsigned (&id)[${ITEMS}], unsigned c0, unsigned kk) {
#pragma unroll
  for (int e = 0; e < ${ITEMS}; e++) {
    if (e & J) continue;
    const bool asc = ((c0 + e) & kk) == 0;
    if (nc_gt(k[e], id[e], k[e + J], id[e + J]) == asc) {
      const K tk = k[e]; k[e] = k[e + J]; k[e + J] = tk;
      const unsigned ti = id[e]; id[e] = id[e + J]; id[e + J] = ti;
    }
  }
}
}  // namespace ${name}_ns

// vals may be src itself (in place: each thread writes the positions it read, after reading them).
extern "C" __global__ void __launch_bounds__(${T}) ${name}(const ${U}* src, ${U}* vals,
    long long* __restrict__ idxs, unsigned rows, unsigned len, unsigned outLen, int reverse, unsigned log2N, int gather) {
  using namespace ${name}_ns;
  __shared__ K sk[${P + P / 8}];
  __shared__ unsigned si[${P + P / 8}];
  const unsigned N = 1u << log2N, t = threadIdx.x, lane = t & 31;
  const unsigned c0 = (t * ${ITEMS}) & (N - 1);  // N >= 8: a thread's positions share a row
  const unsigned long long row = ((unsigned long long)blockIdx.x * ${P} + t * ${ITEMS}) >> log2N;
  const bool live = row < rows;
  K k[${ITEMS}];
  unsigned id[${ITEMS}];
#pragma unroll
  for (int e = 0; e < ${ITEMS}; e++) {
    const unsigned c = c0 + e;
    id[e] = c;
    k[e] = live && c < len ? (K)nc_tf(src[row * len + c]) : ~(K)0;
  }
  for (unsigned kk = 2; kk <= N; kk <<= 1) {
    for (unsigned j = kk >> 1; j > 0; j >>= 1) {
      if (j >= 256) {
        __syncthreads();  // the previous shared step's reads are done
#pragma unroll
        for (int e = 0; e < ${ITEMS}; e++) { sk[nc_sk(t * ${ITEMS} + e)] = k[e]; si[nc_sk(t * ${ITEMS} + e)] = id[e]; }
        __syncthreads();
#pragma unroll
        for (int e = 0; e < ${ITEMS}; e++) {
          const unsigned p = t * ${ITEMS} + e, q = nc_sk(p ^ j);
          const K ok = sk[q];
          const unsigned oi = si[q];
          const bool keepMin = ((p & j) == 0) == (((c0 + e) & kk) == 0);
          if (nc_gt(k[e], id[e], ok, oi) == keepMin) { k[e] = ok; id[e] = oi; }
        }
      } else if (j >= ${ITEMS}) {
        const unsigned m = j / ${ITEMS};
#pragma unroll
        for (int e = 0; e < ${ITEMS}; e++) {
          const K ok = __shfl_xor_sync(0xffffffffu, k[e], m);
          const unsigned oi = __shfl_xor_sync(0xffffffffu, id[e], m);
          const bool keepMin = ((lane & m) == 0) == (((c0 + e) & kk) == 0);
          if (nc_gt(k[e], id[e], ok, oi) == keepMin) { k[e] = ok; id[e] = oi; }
        }
      } else if (j == 4) {
        nc_reg<4>(k, id, c0, kk);
      } else if (j == 2) {
        nc_reg<2>(k, id, c0, kk);
      } else {
        nc_reg<1>(k, id, c0, kk);
      }
    }
  }
  if (!live) return;
#pragma unroll
  for (int e = 0; e < ${ITEMS}; e++) {
    const unsigned c = c0 + e;
    if (c >= len) continue;
    const unsigned o = reverse ? len - 1 - c : c;
    if (o >= outLen) continue;
    const unsigned long long at = row * outLen + o;
    if (vals) vals[at] = gather ? src[row * len + id[e]] : nc_untf((${U})k[e]);
    if (idxs) idxs[at] = id[e];
  }
}
`;
  return { source, name };
}
