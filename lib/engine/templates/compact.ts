/**
 * Stream compaction in C order (nonzero, flatnonzero, argwhere, extract): which elements of a
 * contiguous array are nonzero (NaN counts as nonzero; complex: either part), written in index
 * order. Three launches over the same split of the array into chunks, one a block:
 *
 * - `count`: each block counts the nonzero elements of its chunk (one count a block; the tile's
 *   vectors striped over the threads, as order does not matter);
 * - `scan` (one block of 1024 threads, at most 1024 chunks): the counts become each chunk's first
 *   output position, and the total is written after them (the host reads it back to size the
 *   output);
 * - `write`: each block walks its chunk in tiles of 4096 elements (16 consecutive a thread), ranks
 *   the nonzero ones by a block scan of the threads' counts and writes, at its chunk's position
 *   plus the rank, the flat index (mode 0), the element of a second array there (1, extract), or
 *   the index as coordinates of `dims`: [total, ndim] (2, argwhere) or [ndim, total] (3, nonzero).
 */
import { DType } from '../../base/dtype';

/**
 * Threads of the count and write kernels, elements a thread takes per tile (consecutive ones, read
 * as 16-byte vectors when the array is 16-byte aligned), the tile, and the most chunks.
 */
export const COMPACT_THREADS = 256;
export const COMPACT_ITEMS = 16;
export const COMPACT_TILE = COMPACT_THREADS * COMPACT_ITEMS;
export const COMPACT_MAX_CHUNKS = 1024;
/** Most dimensions the coordinate modes take (the dims are a kernel argument). */
export const COMPACT_MAX_DIMS = 32;

/** The block's chunk [begin, end), and whether the array can be read in 16-byte vectors. */
const CHUNK = `  const unsigned long long begin = (unsigned long long)blockIdx.x * chunk, end = min(n, begin + chunk);
  const unsigned int t = threadIdx.x, lane = t & 31u, w = t >> 5;
  const bool vec = (reinterpret_cast<unsigned long long>(a) & 15ull) == 0;`;

/**
 * The flags of a thread's ${COMPACT_ITEMS} elements of the tile at i0 (j: the first) as the bits of m, and
 * their count c. A whole run of aligned elements is read as 16-byte vectors (chunks are whole tiles,
 * so j is a multiple of ${COMPACT_ITEMS} elements), a run cut by the end element by element.
 */
const FLAGS = `    const unsigned long long j = i0 + ${COMPACT_ITEMS}ull * t;
    unsigned int m = 0;
    if (vec && j + ${COMPACT_ITEMS}ull <= end) {
      union { uint4 q[${COMPACT_ITEMS} * sizeof(S) / 16]; S e[${COMPACT_ITEMS}]; } u;
      const uint4* const src = reinterpret_cast<const uint4*>(a + j);
#pragma unroll
      for (int k = 0; k < (int)(${COMPACT_ITEMS} * sizeof(S) / 16); k++) u.q[k] = src[k];
#pragma unroll
      for (int k = 0; k < ${COMPACT_ITEMS}; k++) m |= nc_nonzero(nc_load(u.e[k])) ? 1u << k : 0u;
    } else {
#pragma unroll
      for (int k = 0; k < ${COMPACT_ITEMS}; k++) m |= j + k < end && nc_nonzero(nc_load(a[j + k])) ? 1u << k : 0u;
    }
    const unsigned int c = __popc(m);`;

/** The count kernel of `dt`: (a, n, chunk, counts), grid = the chunks, 256 threads. */
export function compactCountKernel(dt: DType): { source: string; name: string } {
  const name = `nc_compact_count_${dt.name}`;
  const source = `
namespace ${name}_ns { typedef ${dt.storageC} S; }
extern "C" __global__ void __launch_bounds__(${COMPACT_THREADS}) ${name}(const ${name}_ns::S* __restrict__ a,
    const unsigned long long n, const unsigned long long chunk, unsigned long long* __restrict__ counts) {
  using namespace ${name}_ns;
${CHUNK}
  // Order does not matter here: a whole aligned tile is read in 16-byte vectors striped over the
  // threads (coalesced), a tile cut by the end element by element.
  unsigned long long total = 0;
  for (unsigned long long i0 = begin; i0 < end; i0 += ${COMPACT_TILE}u) {
    unsigned int c = 0;
    if (vec && i0 + ${COMPACT_TILE}u <= end) {
      const uint4* const src = reinterpret_cast<const uint4*>(a + i0);
      union { uint4 q; S e[16 / sizeof(S)]; } u[sizeof(S)];
#pragma unroll
      for (int k = 0; k < (int)sizeof(S); k++) u[k].q = src[t + ${COMPACT_THREADS}u * k];
#pragma unroll
      for (int k = 0; k < (int)sizeof(S); k++) {
#pragma unroll
        for (int e = 0; e < (int)(16 / sizeof(S)); e++) c += nc_nonzero(nc_load(u[k].e[e])) ? 1u : 0u;
      }
    } else {
#pragma unroll
      for (int k = 0; k < ${COMPACT_ITEMS}; k++) {
        const unsigned long long i = i0 + t + ${COMPACT_THREADS}u * k;
        c += i < end && nc_nonzero(nc_load(a[i])) ? 1u : 0u;
      }
    }
    total += c;
  }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) total += __shfl_down_sync(0xffffffffu, total, o);
  __shared__ unsigned long long s[${COMPACT_THREADS / 32}];
  if (lane == 0) s[w] = total;
  __syncthreads();
  if (t == 0) {
    unsigned long long sum = 0;
    for (int k = 0; k < ${COMPACT_THREADS / 32}; k++) sum += s[k];
    counts[blockIdx.x] = sum;
  }
}`;
  return { source, name };
}

/** The scan kernel: (counts, G): counts[0..G) become exclusive starts, counts[G] the total; one block of 1024. */
export function compactScanKernel(): { source: string; name: string } {
  const name = 'nc_compact_scan';
  const source = `
extern "C" __global__ void __launch_bounds__(1024) ${name}(unsigned long long* __restrict__ counts, const unsigned int G) {
  const unsigned int t = threadIdx.x, lane = t & 31u, w = t >> 5;
  const unsigned long long v = t < G ? counts[t] : 0ull;
  unsigned long long x = v;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) { const unsigned long long y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
  __shared__ unsigned long long s[32];
  if (lane == 31) s[w] = x;
  __syncthreads();
  if (w == 0) {
    unsigned long long z = s[lane];
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { const unsigned long long y = __shfl_up_sync(0xffffffffu, z, o); if (lane >= o) z += y; }
    s[lane] = z;
  }
  __syncthreads();
  const unsigned long long incl = x + (w ? s[w - 1] : 0ull);
  if (t < G) counts[t] = incl - v;
  if (t == 1023) counts[G] = incl;
}`;
  return { source, name };
}

/**
 * The write kernel of condition dtype `dt` (and, for extract, value dtype `dv`): (a, n, chunk,
 * starts, out, mode, ndim, total, dims[32], v), grid = the chunks, 256 threads. Each tile's nonzero
 * elements are ranked by a block scan of the threads' counts, their offsets in the tile staged in
 * shared memory in that order, and written out by consecutive threads (coalesced).
 */
export function compactWriteKernel(dt: DType, dv: DType | null): { source: string; name: string } {
  const name = `nc_compact_write_${dt.name}${dv ? `_${dv.name}` : ''}`;
  const V = dv ? dv.storageC : 'char';
  const put = dv
    ? 'reinterpret_cast<V*>(out)[p] = v[i];'
    : `long long* const o = reinterpret_cast<long long*>(out);
      if (mode == 0) o[p] = (long long)i;
      else {
        unsigned long long r = i;
        for (int d = ndim - 1; d >= 0; d--) {
          const unsigned long long q = r / (unsigned long long)dims.d[d];
          o[mode == 2 ? p * ndim + d : d * total + p] = (long long)(r - q * (unsigned long long)dims.d[d]);
          r = q;
        }
      }`;
  const source = `
namespace ${name}_ns {
struct Dims { long long d[${COMPACT_MAX_DIMS}]; };
typedef ${dt.storageC} S;
typedef ${V} V;
}
extern "C" __global__ void __launch_bounds__(${COMPACT_THREADS}) ${name}(const ${name}_ns::S* __restrict__ a,
    const unsigned long long n, const unsigned long long chunk, const unsigned long long* __restrict__ starts,
    void* __restrict__ out, const int mode, const int ndim, const unsigned long long total, const ${name}_ns::Dims dims,
    const ${name}_ns::V* __restrict__ v) {
  using namespace ${name}_ns;
${CHUNK}
  __shared__ unsigned int s[${COMPACT_THREADS / 32}];
  __shared__ unsigned short at[${COMPACT_TILE}];  // the tile's nonzero elements' offsets, in order
  unsigned long long base = starts[blockIdx.x];
  for (unsigned long long i0 = begin; i0 < end; i0 += ${COMPACT_TILE}u) {
${FLAGS}
    unsigned int x = c;  // the block's inclusive scan of c
#pragma unroll
    for (int o = 1; o < 32; o <<= 1) { const unsigned int y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
    if (lane == 31) s[w] = x;
    __syncthreads();
    unsigned int before = 0, tile = 0;
#pragma unroll
    for (int k = 0; k < ${COMPACT_THREADS / 32}; k++) { before += k < (int)w ? s[k] : 0u; tile += s[k]; }
    unsigned int r = before + x - c;
    for (unsigned int b = m; b; b &= b - 1) at[r++] = (unsigned short)(${COMPACT_ITEMS}u * t + (unsigned int)(__ffs(b) - 1));
    __syncthreads();
    for (unsigned int q = t; q < tile; q += ${COMPACT_THREADS}u) {
      const unsigned long long i = i0 + at[q], p = base + q;
      ${put}
    }
    base += tile;
    __syncthreads();  // s and at are read before the next tile writes them
  }
}`;
  return { source, name };
}
