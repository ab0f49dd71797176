/**
 * unique's kernels (CUDA C source; need PREAMBLE before them). The sort path (every dtype): a
 * two-kernel compaction of the sorted array into its runs.
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
 *
 * The counting path (integers and bool of a small range, docs/sorting.md): the range is a
 * reduction (uniqueMinMaxSpec, run by engine/reduce.ts), then `hist` bins the input over it,
 * `bins_count` counts the occupied bins per chunk of bins (as `count` counts heads), `bins_result`
 * writes each occupied bin's value, count and first index at its rank (as `result` does at run
 * numbers) and the rank into the bin, and `inverse` maps every element to its bin's rank.
 */
import { DType } from '../../base/dtype';
import { ReduceSpec } from './reduction';

/**
 * Device condition of unique's range probe (a sort kernel's `range`, its least and greatest key,
 * and `narrow`): the range spans at most `narrow` values, so the sort and the run count do nothing
 * and the input is counted. scanhist (templates/sort.ts) and the run count test it.
 */
export const RANGE_COUNTED = 'range && range[1] - range[0] < narrow';

/** Threads of a block; each takes 4 consecutive elements a round. */
const BLOCK = 256;
/** Elements a block covers in one round (chunks are multiples of it). */
export const UNIQUE_ROUND = BLOCK * 4;

/**
 * Block-wide sums of one uint32 a thread (dtype-independent; every kernel here has them in its
 * namespace): `block_sum`, the total in every thread; `block_excl`, the exclusive prefix in thread
 * order and the total; `runs_before`, the sum of the chunk counts of the blocks before this one.
 * `sw`: 8 words of shared memory, not written again before a barrier (rounds alternate two sets).
 */
const BLOCK_SCANS = `
__device__ __forceinline__ unsigned int block_sum(unsigned int v, unsigned int* sw) {
  #pragma unroll
  for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
  if ((threadIdx.x & 31) == 0) sw[threadIdx.x >> 5] = v;
  __syncthreads();
  unsigned int t = 0;
  #pragma unroll
  for (int w = 0; w < ${BLOCK / 32}; w++) t += sw[w];
  return t;
}
__device__ __forceinline__ unsigned int block_excl(unsigned int c, unsigned int* sw, unsigned int& tot) {
  const unsigned int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned int incl = c;  // warp shuffles, then the warp totals
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) {
    const unsigned int y = __shfl_up_sync(0xffffffffu, incl, o);
    if (lane >= o) incl += y;
  }
  if (lane == 31) sw[warp] = incl;
  __syncthreads();
  unsigned int wpre = 0;
  tot = 0;
  #pragma unroll
  for (int w = 0; w < ${BLOCK / 32}; w++) {
    const unsigned int v = sw[w];
    wpre += (unsigned int)w < warp ? v : 0u;
    tot += v;
  }
  return wpre + incl - c;
}
// The block's total of c into bcount[blockIdx.x] and added to *total (sw: as block_sum).
__device__ __forceinline__ void publish(unsigned int c, unsigned int* __restrict__ bcount, unsigned int* __restrict__ total,
    unsigned int* sw) {
  c = block_sum(c, sw);
  if (threadIdx.x == 0) {
    bcount[blockIdx.x] = c;
    if (c) atomicAdd(total, c);
  }
}
// Block b's first run number: the sum of bcount[0..b) (at most a few thousand counts, from L2).
__device__ __forceinline__ unsigned int runs_before(const unsigned int* __restrict__ bcount, unsigned int* sw) {
  unsigned int before = 0;
  for (unsigned int b = threadIdx.x; b < blockIdx.x; b += ${BLOCK}) before += bcount[b];
  return block_sum(before, sw);
}`;

/**
 * `vec_ok(p)`: `p` is aligned for `vec4`, which loads elements i..i + 3 (i a multiple of 4) as one
 * nc_vec (4, 8, 16 bytes; 32 and 64 as 16-byte pieces); `load4`: elements i..i + 3 (i < end), those
 * at or past `end` a repeat of element i, with vec4 when all four are in range and `vec`.
 */
function vectors(dt: DType): string {
  const S = dt.storageC;
  const align = Math.min(16, 4 * dt.bytes);
  return `
__device__ __forceinline__ bool vec_ok(const void* p) { return ((unsigned long long)p & ${align - 1}ull) == 0; }
__device__ __forceinline__ void vec4(const ${S}* __restrict__ s, unsigned long long i, ${S} (&x)[4]) {
  const nc_vec<${S}, 4> v = *reinterpret_cast<const nc_vec<${S}, 4>*>(s + i);
  #pragma unroll
  for (int j = 0; j < 4; j++) x[j] = v.v[j];
}
__device__ __forceinline__ void load4(const ${S}* __restrict__ s, unsigned long long i, unsigned long long end, bool vec,
    ${S} (&x)[4]) {
  if (vec && i + 4 <= end) return vec4(s, i, x);
  #pragma unroll
  for (int j = 0; j < 4; j++) x[j] = s[i + j < end ? i + j : i];
}`;
}

const suffix = (dt: DType, equalNan: boolean): string => `${dt.name}${equalNan ? '_eqnan' : ''}`;

/**
 * Device helpers of a dtype: `same(x, y)` (one run: equal, or both NaN when `equalNan`), `load`
 * (4 consecutive elements and the one before), `heads` (their head flags as bits), BLOCK_SCANS.
 */
function helpers(dt: DType, equalNan: boolean): string {
  const S = dt.storageC;
  const C = dt.computeC;
  // Chunk and round starts are multiples of 4 elements, so every full group is aligned for vec4
  // when the array is. The element before the group is a load of its own (the previous thread's
  // last element: a cache hit, mostly).
  return `
__device__ __forceinline__ bool same(${C} x, ${C} y) { return x == y${equalNan ? ' || (nc_isnan(x) && nc_isnan(y))' : ''}; }${vectors(dt)}
// x: elements i..i + 3, p: element i - 1 (element 0 when i is 0). load_vec: all four in range, vec.
__device__ __forceinline__ void load_vec(const ${S}* __restrict__ s, unsigned long long i, ${S} (&x)[4], ${S}& p) {
  p = s[i > 0 ? i - 1 : 0];
  vec4(s, i, x);
}
__device__ __forceinline__ void load(const ${S}* __restrict__ s, unsigned long long i, unsigned long long end, bool vec,
    ${S} (&x)[4], ${S}& p) {
  if (i >= end) return;
  p = s[i > 0 ? i - 1 : 0];
  load4(s, i, end, vec, x);
}
// Bit j set: element i + j (< end) starts a run (x and p as load left them).
__device__ __forceinline__ unsigned int heads(unsigned long long i, unsigned long long end, const ${S} (&x)[4], ${S} p) {
  if (i >= end) return 0u;
  unsigned int m = (i == 0 || !same(nc_load(p), nc_load(x[0]))) ? 1u : 0u;
  #pragma unroll
  for (int j = 1; j < 4; j++) if (i + j < end && !same(nc_load(x[j - 1]), nc_load(x[j]))) m |= 1u << j;
  return m;
}${BLOCK_SCANS}`;
}

/**
 * unique, first kernel: run heads per chunk into `bcount[b]`, their total added to `*count` (zeroed
 * before). With `range` (the sort's prep range) spanning at most `narrow` values it does nothing.
 */
export function uniqueCountKernel(dt: DType, equalNan: boolean): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_count_${suffix(dt, equalNan)}`;
  const source = `
namespace ${name}_ns {${helpers(dt, equalNan)}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const ${S}* __restrict__ s, unsigned int* __restrict__ count,
    unsigned int* __restrict__ bcount, const unsigned long long n, const unsigned long long chunk,
    const unsigned long long* __restrict__ range, const unsigned long long narrow) {
  using namespace ${name}_ns;
  if (${RANGE_COUNTED}) return;  // the sort was skipped (scanhist): nothing to count
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
  publish(c, bcount, count, s_w);
}`;
  return { source, name };
}

/**
 * Rounds the result kernel takes a step (NODECUDA_UNIQUE_RESULT_ROUNDS, 1 or 2; default 2): their
 * loads are issued before any compare, and one block scan of both rounds' head counts (16-bit
 * halves of one word) and one barrier serve them, so a step waits once for memory, not twice.
 */
export const UNIQUE_RESULT_ROUNDS: 1 | 2 = process.env.NODECUDA_UNIQUE_RESULT_ROUNDS === '1' ? 1 : 2; // read once, at load

/**
 * unique, second kernel: each head writes its value to `vals`, its index (through `perm`, the
 * sort's int64 indices, when given) to `first` and its position to `starts` at its run number;
 * `inv[perm ? perm[i] : i]` gets element i's run number. Null pointers are skipped. With `range`
 * spanning at most `narrow` values (the run count did nothing: see uniqueCountKernel) it does
 * nothing either, so the host may launch it before it reads the count back.
 */
export function uniqueResultKernel(dt: DType, equalNan: boolean, rounds: 1 | 2 = UNIQUE_RESULT_ROUNDS): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_result_${suffix(dt, equalNan)}${rounds === 1 ? '_r1' : ''}`;
  const R = [0, 1].slice(0, rounds);
  // A round's heads: value (staged in shared memory at its place in the step's run order), first
  // index, start, and every element's inverse.
  const emit = (g: number): string => `
    if (i${g} < end && (m${g} || inv)) {
      long long q[4];  // the elements' input indices
      if (perm && pvec && i${g} + 4 <= end) {
        const nc_vec<long long, 2> a = *reinterpret_cast<const nc_vec<long long, 2>*>(perm + i${g});
        const nc_vec<long long, 2> b = *reinterpret_cast<const nc_vec<long long, 2>*>(perm + i${g} + 2);
        q[0] = a.v[0]; q[1] = a.v[1]; q[2] = b.v[0]; q[3] = b.v[1];
      } else {
        #pragma unroll
        for (int j = 0; j < 4; j++) q[j] = perm ? perm[i${g} + j < end ? i${g} + j : i${g}] : (long long)(i${g} + j);
      }
      unsigned int r = base${g};  // after element i + j's flag is counted: its run number + 1
      #pragma unroll
      for (int j = 0; j < 4; j++) {
        if (i${g} + j >= end) break;
        if ((m${g} >> j) & 1u) {
          if (vals) s_v[r - head0] = x${g}[j];
          if (first) first[r] = q[j];
          if (starts) starts[r] = (long long)(i${g} + j);
          r++;
        }
        if (inv) inv[q[j]] = (long long)r - 1;
      }
    }`;
  const source = `
namespace ${name}_ns {${helpers(dt, equalNan)}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const ${S}* __restrict__ s,
    const unsigned int* __restrict__ bcount, const long long* __restrict__ perm, ${S}* __restrict__ vals,
    long long* __restrict__ first, long long* __restrict__ starts, long long* __restrict__ inv,
    const unsigned long long n, const unsigned long long chunk,
    const unsigned long long* __restrict__ range, const unsigned long long narrow) {
  using namespace ${name}_ns;
  if (${RANGE_COUNTED}) return;  // the sort was skipped (scanhist): nothing was counted
  __shared__ unsigned int s_b[${BLOCK / 32}];
  __shared__ unsigned int s_w[2][${BLOCK / 32}];  // warp totals, alternating steps: one barrier a step
  // A step's values, in run order: written out in one coalesced run. Reused each step: the next
  // step's scan barrier comes after every read of it.
  __shared__ ${S} s_v[${rounds * UNIQUE_ROUND}];
  const unsigned int t = threadIdx.x;
  // Without the inverse only heads write: a chunk without any is done, and the walk stops after
  // the chunk's last head (block-uniform: every thread sees the same run and mine).
  const unsigned int mine = bcount[blockIdx.x];
  if (!inv && mine == 0) return;
  const unsigned long long start = (unsigned long long)blockIdx.x * chunk;
  const unsigned long long end = start + chunk < n ? start + chunk : n;
  unsigned int run = runs_before(bcount, s_b);  // heads before this step
  const unsigned int last = run + mine;
  const bool vec = vec_ok(s), pvec = ((unsigned long long)perm & 15ull) == 0;
  unsigned int par = 0;
  for (unsigned long long r0 = start; r0 < end; r0 += ${rounds * UNIQUE_ROUND}, par ^= 1) {
    ${R.map((g) => `const unsigned long long i${g} = r0 + ${g * UNIQUE_ROUND}ull + 4ull * t;`).join('\n    ')}
    ${R.map((g) => `${S} x${g}[4], p${g};`).join(' ')}
    if (vec && i${rounds - 1} + 4 <= end) {
      ${R.map((g) => `load_vec(s, i${g}, x${g}, p${g});`).join(' ')}
    } else {
      ${R.map((g) => `load(s, i${g}, end, vec, x${g}, p${g});`).join(' ')}
    }
    ${R.map((g) => `const unsigned int m${g} = heads(i${g}, end, x${g}, p${g});`).join('\n    ')}
    // Each round's head count in its own 16-bit half (at most ${UNIQUE_ROUND} a round: no carry).
    unsigned int tot;  // the step's heads, packed as the counts
    const unsigned int ex = block_excl(${R.map((g) => `(__popc(m${g}) << ${16 * g})`).join(' | ')}, s_w[par], tot);
    const unsigned int head0 = run;  // heads before this step
    ${R.map((g) => `const unsigned int base${g} = run${g === 1 ? ' + (tot & 0xffffu)' : ''} + ((ex >> ${16 * g}) & 0xffffu);`).join('\n    ')}
    tot = ${rounds === 1 ? 'tot' : '(tot & 0xffffu) + (tot >> 16)'};
    run += tot;${R.map(emit).join('')}
    if (vals) {
      __syncthreads();
      for (unsigned int k = t; k < tot; k += ${BLOCK}) vals[head0 + k] = s_v[k];
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

// ---- the counting path: integers and bool of a small range -----------------------------------

/** Shared memory a histogram block may give its private bins (uint32 counts, and first indices with them). */
export const UNIQUE_SHARED_BYTES = 32768;
/** Ranges of at most this many values are counted with warp ballots (no atomic per element). */
export const UNIQUE_BALLOT_BINS = 8;
/** The histogram kernel's ways of counting (its `mode` parameter): see uniqueHistKernel. */
export const HIST_MODE = Object.freeze({ global: 0, shared: 1, ballots: 2 });

/**
 * unique's range: the min and max of an integer or bool array as one reduction (engine/reduce.ts)
 * whose accumulator and result are a struct of two 64-bit integers (signed for signed dtypes,
 * else unsigned): exact for int64 and uint64, one read of the input.
 */
export function uniqueMinMaxSpec(dt: DType): ReduceSpec {
  const T = dt.kind === 'i' ? 'long long' : 'unsigned long long';
  const acc = dt.kind === 'i' ? 'nc_minmax_i' : 'nc_minmax_u';
  const [top, bottom] = dt.kind === 'i' ? ['9223372036854775807LL', '(-9223372036854775807LL - 1)'] : ['18446744073709551615ull', '0ull'];
  const both = (x: string): string => `${acc}{(${T})${x}, (${T})${x}}`;
  return {
    name: `nc_unique_minmax_${dt.name}`, acc, neutral: `${acc}{${top}, ${bottom}}`,
    reduce: `${acc}{a.lo < b.lo ? a.lo : b.lo, a.hi > b.hi ? a.hi : b.hi}`, out: acc,
    params: `const ${dt.storageC} *__restrict__ in0`, map: both('nc_load(in0[i])'),
    vec: { arrays: [{ name: 'in0', storage: dt.storageC, compute: dt.computeC }], map: both('nc_x0') },
    post: 'nc_acc', preamble: `#ifndef ${acc}_DEF\n#define ${acc}_DEF\nstruct ${acc} { ${T} lo, hi; };\n#endif`,
  };
}

/** `bin_of(v, lo)`: v - lo in 64-bit unsigned arithmetic (signed values sign-extended), and vec_ok/vec4/load4. */
function binHelpers(dt: DType): string {
  return `${vectors(dt)}
__device__ __forceinline__ unsigned long long bin_of(${dt.storageC} v, unsigned long long lo) { return (unsigned long long)nc_load(v) - lo; }`;
}

/**
 * unique, counting path, first kernel: `counts[v - lo] += 1` for every element (`bins` uint32
 * bins, zeroed before) and, when `first` is given, `first[v - lo] = min(index)` (uint32, filled
 * with 0xffffffff before). Values outside [lo, lo + bins) are not counted (there are none when lo
 * and bins come from the input's range). `mode` (HIST_MODE): global atomics; the block's own bins
 * in dynamic shared memory (bins × 4 bytes, × 8 with `first`), merged with one atomic a bin; or,
 * for at most UNIQUE_BALLOT_BINS bins, a ballot a bin and element slot with each warp's totals in
 * registers. Threads take 4 consecutive elements (one vector load when aligned) and add a run of
 * equal ones at once; a first index is only offered when it is below the one already there.
 */
export function uniqueHistKernel(dt: DType): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_hist_${dt.name}`;
  const source = `
namespace ${name}_ns {${binHelpers(dt)}
// c elements of bin d, the first at index f: first indices only decrease, so a stale read of hf[d]
// costs one atomic more, never a wrong minimum.
__device__ __forceinline__ void add(unsigned int* hc, unsigned int* hf, bool wf, unsigned int d, unsigned int c, unsigned int f) {
  atomicAdd(hc + d, c);
  if (wf && f < hf[d]) atomicMin(hf + d, f);
}
// Elements 4g..4g + 3 (those < n) in index order; a run of one bin is added at once.
__device__ __forceinline__ void add4(unsigned int* hc, unsigned int* hf, bool wf, const ${S} (&x)[4], unsigned long long g,
    unsigned long long n, unsigned long long lo, unsigned int bins) {
  unsigned int cur = 0, c = 0, f = 0;
  #pragma unroll
  for (int j = 0; j < 4; j++) {
    const unsigned long long i = 4 * g + j;
    if (i >= n) break;
    const unsigned long long d = bin_of(x[j], lo);
    if (d >= bins) continue;
    if (c && d == cur) {
      c++;
      continue;
    }
    if (c) add(hc, hf, wf, cur, c, f);
    cur = (unsigned int)d;
    c = 1;
    f = (unsigned int)i;
  }
  if (c) add(hc, hf, wf, cur, c, f);
}
// Every element into the bins hc/hf (global or shared): groups of 4 grid-strided, two in flight.
__device__ __forceinline__ void count_atomic(const ${S}* __restrict__ x, unsigned int* hc, unsigned int* hf, bool wf,
    unsigned long long n, unsigned long long lo, unsigned int bins) {
  const bool vec = vec_ok(x);
  const unsigned long long groups = (n + 3) / 4, step = (unsigned long long)gridDim.x * ${BLOCK};
  for (unsigned long long g = (unsigned long long)blockIdx.x * ${BLOCK} + threadIdx.x; g < groups; g += 2 * step) {
    ${S} a[4], b[4];
    load4(x, 4 * g, n, vec, a);
    if (g + step < groups) load4(x, 4 * (g + step), n, vec, b);
    add4(hc, hf, wf, a, g, n, lo, bins);
    if (g + step < groups) add4(hc, hf, wf, b, g + step, n, lo, bins);
  }
}
// bins <= ${UNIQUE_BALLOT_BINS}: each warp takes 32 groups a step (g0 warp-uniform, so every lane is in
// every ballot); lane l's element j is index 4 (g0 + l) + j, so the lowest lane of a ballot is the
// slot's first index.
__device__ __forceinline__ void count_ballots(const ${S}* __restrict__ x, unsigned int* __restrict__ counts,
    unsigned int* __restrict__ first, unsigned long long n, unsigned long long lo, unsigned int bins) {
  const bool vec = vec_ok(x);
  const unsigned int lane = threadIdx.x & 31;
  const unsigned long long groups = (n + 3) / 4, step = (unsigned long long)gridDim.x * ${BLOCK};
  unsigned int c[${UNIQUE_BALLOT_BINS}], f[${UNIQUE_BALLOT_BINS}];
  #pragma unroll
  for (int b = 0; b < ${UNIQUE_BALLOT_BINS}; b++) {
    c[b] = 0;
    f[b] = 0xffffffffu;
  }
  for (unsigned long long g0 = (unsigned long long)blockIdx.x * ${BLOCK} + (threadIdx.x & ~31u); g0 < groups; g0 += step) {
    const unsigned long long g = g0 + lane;
    ${S} v[4];
    if (g < groups) load4(x, 4 * g, n, vec, v);
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned long long d = 4 * g + j < n ? bin_of(v[j], lo) : ~0ull;
      #pragma unroll
      for (int b = 0; b < ${UNIQUE_BALLOT_BINS}; b++) {
        if ((unsigned int)b >= bins) break;
        const unsigned int m = __ballot_sync(0xffffffffu, d == (unsigned long long)b);
        c[b] += __popc(m);
        if (m) f[b] = min(f[b], (unsigned int)(4 * (g0 + (unsigned int)(__ffs(m) - 1)) + j));
      }
    }
  }
  if (lane == 0) {
    #pragma unroll
    for (int b = 0; b < ${UNIQUE_BALLOT_BINS}; b++) {
      if ((unsigned int)b < bins && c[b]) {
        atomicAdd(counts + b, c[b]);
        if (first) atomicMin(first + b, f[b]);
      }
    }
  }
}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const ${S}* __restrict__ x, unsigned int* __restrict__ counts,
    unsigned int* __restrict__ first, const unsigned long long n, const unsigned long long lo, const unsigned int bins,
    const int mode) {
  using namespace ${name}_ns;
  if (mode == ${HIST_MODE.ballots}) return count_ballots(x, counts, first, n, lo, bins);
  if (mode == ${HIST_MODE.global}) return count_atomic(x, counts, first, first != nullptr, n, lo, bins);
  extern __shared__ unsigned int s_h[];  // bins counts, then (first) bins first indices
  unsigned int* s_f = s_h + bins;
  for (unsigned int b = threadIdx.x; b < bins; b += ${BLOCK}) {
    s_h[b] = 0;
    if (first) s_f[b] = 0xffffffffu;
  }
  __syncthreads();
  count_atomic(x, s_h, s_f, first != nullptr, n, lo, bins);
  __syncthreads();
  for (unsigned int b = threadIdx.x; b < bins; b += ${BLOCK}) {
    const unsigned int c = s_h[b];
    if (c) {
      atomicAdd(counts + b, c);
      if (first) atomicMin(first + b, s_f[b]);
    }
  }
}`;
  return { source, name };
}

/**
 * unique, counting path, second kernel (dtype-independent): the occupied bins (count > 0) of each
 * chunk of bins into `bcount[b]`, their total added to `*total` (zeroed before): the number of
 * unique values, read back. Chunks as uniqueChunks(bins).
 */
export function uniqueBinsCountKernel(): { source: string; name: string } {
  const name = 'nc_unique_bins_count';
  const source = `
namespace ${name}_ns {${BLOCK_SCANS}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const unsigned int* __restrict__ counts,
    unsigned int* __restrict__ total, unsigned int* __restrict__ bcount, const unsigned long long bins,
    const unsigned long long chunk) {
  using namespace ${name}_ns;
  __shared__ unsigned int s_w[${BLOCK / 32}];
  const unsigned long long start = (unsigned long long)blockIdx.x * chunk;
  const unsigned long long end = start + chunk < bins ? start + chunk : bins;
  unsigned int c = 0;
  for (unsigned long long b = start + threadIdx.x; b < end; b += ${BLOCK}) c += counts[b] != 0u ? 1u : 0u;
  publish(c, bcount, total, s_w);
}`;
  return { source, name };
}

/**
 * unique, counting path, third kernel (same chunks, after the count): each occupied bin's rank
 * (the occupied bins before it) is its index in the results: `vals[r] = lo + bin` (the dtype),
 * `ocounts[r]` its count and `ofirst[r]` its first index (int64; null: skipped); with `ranks` the
 * rank replaces the bin's count (the inverse kernel reads it). A chunk's walk stops after its
 * last occupied bin.
 */
export function uniqueBinsResultKernel(dt: DType): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_bins_result_${dt.name}`;
  const source = `
namespace ${name}_ns {${BLOCK_SCANS}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(unsigned int* __restrict__ counts,
    const unsigned int* __restrict__ first, const unsigned int* __restrict__ bcount, ${S}* __restrict__ vals,
    long long* __restrict__ ofirst, long long* __restrict__ ocounts, const unsigned long long lo,
    const unsigned long long bins, const unsigned long long chunk, const int ranks) {
  using namespace ${name}_ns;
  __shared__ unsigned int s_b[${BLOCK / 32}];
  __shared__ unsigned int s_w[2][${BLOCK / 32}];
  const unsigned int mine = bcount[blockIdx.x];  // no occupied bin: nothing to write, no rank read
  if (mine == 0) return;
  const unsigned long long start = (unsigned long long)blockIdx.x * chunk;
  const unsigned long long end = start + chunk < bins ? start + chunk : bins;
  unsigned int run = runs_before(bcount, s_b);  // occupied bins before this round
  const unsigned int last = run + mine;
  const bool vec = ((unsigned long long)counts & 15ull) == 0;
  unsigned int par = 0;
  for (unsigned long long r0 = start; r0 < end && run < last; r0 += ${UNIQUE_ROUND}, par ^= 1) {
    const unsigned long long i = r0 + 4ull * threadIdx.x;
    unsigned int c[4] = {0u, 0u, 0u, 0u};
    if (vec && i + 4 <= end) {
      const uint4 v = *reinterpret_cast<const uint4*>(counts + i);
      c[0] = v.x; c[1] = v.y; c[2] = v.z; c[3] = v.w;
    } else {
      #pragma unroll
      for (int j = 0; j < 4; j++) if (i + j < end) c[j] = counts[i + j];
    }
    const unsigned int m = (c[0] ? 1u : 0u) | (c[1] ? 2u : 0u) | (c[2] ? 4u : 0u) | (c[3] ? 8u : 0u);
    unsigned int tot;
    unsigned int r = run + block_excl(__popc(m), s_w[par], tot);
    run += tot;
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      if (!c[j]) continue;
      vals[r] = NC_STORE(${S}, (${dt.computeC})(lo + i + j));
      if (ofirst) ofirst[r] = (long long)first[i + j];
      if (ocounts) ocounts[r] = (long long)c[j];
      if (ranks) counts[i + j] = r;
      r++;
    }
  }
}`;
  return { source, name };
}

/** unique, counting path, inverse: `inv[i] = rank[x[i] - lo]` (int64; -1 for a value outside the bins). */
export function uniqueInverseKernel(dt: DType): { source: string; name: string } {
  const S = dt.storageC;
  const name = `nc_unique_inverse_${dt.name}`;
  const source = `
namespace ${name}_ns {${binHelpers(dt)}
}
extern "C" __global__ void __launch_bounds__(${BLOCK}) ${name}(const ${S}* __restrict__ x, const unsigned int* __restrict__ rank,
    long long* __restrict__ inv, const unsigned long long n, const unsigned long long lo, const unsigned long long bins) {
  using namespace ${name}_ns;
  const bool vec = vec_ok(x), ivec = ((unsigned long long)inv & 15ull) == 0;
  const unsigned long long groups = (n + 3) / 4, step = (unsigned long long)gridDim.x * ${BLOCK};
  for (unsigned long long g = (unsigned long long)blockIdx.x * ${BLOCK} + threadIdx.x; g < groups; g += step) {
    const unsigned long long i = 4 * g;
    ${S} v[4];
    load4(x, i, n, vec, v);
    long long r[4];
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned long long d = bin_of(v[j], lo);
      r[j] = d < bins ? (long long)rank[d] : -1ll;
    }
    if (ivec && i + 4 <= n) {
      nc_vec<long long, 2> a, b;
      a.v[0] = r[0]; a.v[1] = r[1]; b.v[0] = r[2]; b.v[1] = r[3];
      *reinterpret_cast<nc_vec<long long, 2>*>(inv + i) = a;
      *reinterpret_cast<nc_vec<long long, 2>*>(inv + i + 2) = b;
    } else {
      #pragma unroll
      for (int j = 0; j < 4; j++) if (i + j < n) inv[i + j] = r[j];
    }
  }
}`;
  return { source, name };
}
