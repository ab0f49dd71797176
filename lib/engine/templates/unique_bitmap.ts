/**
 * unique's values by bitmaps (4-byte integers, the values alone; docs/sorting.md): the radix sort
 * stops after the top 16 bits of the keys (scanhist skips the two low passes), which leaves each
 * bucket (the keys that share their top 16 bits) a contiguous run. Then: the buckets' starts; per
 * chunk of the sorted keys (one a block, the same size each, so a bucket of any size is shared out)
 * a 65536-bit bitmap (the keys' low 16 bits) in shared memory for each bucket run in it, counted
 * when the bucket lies within the chunk, else OR-ed into the global bitmap of the chunk where the
 * bucket starts (counted by `cross`); an exclusive scan of the counts; per chunk each bucket that
 * starts in it written in order at its offset (from the shared bitmap built again, or the global
 * one). Every kernel does nothing when prep's range spans at most `narrow` values (RANGE_COUNTED:
 * the sort was skipped and unique counts instead).
 */
import { DTYPES, DType } from '../../base/dtype';
import { RANGE_COUNTED } from './unique';
import { tag } from './sort_keys';

/** Threads of the bucket kernels' blocks. */
export const BITMAP_BLOCK = 256;
/** Threads of the single block that scans the buckets' counts. */
export const BITMAP_SCAN_BLOCK = 1024;
/** Buckets: one per value of a key's top 16 bits. */
export const BITMAP_BUCKETS = 65536;
/** 32-bit words of a bucket's bitmap (65536 bits). */
export const BITMAP_WORDS = 2048;
/** Fewest keys of a chunk (a block's share of the sorted keys). */
export const BITMAP_MIN_CHUNK = 4096;
/** The low passes (8 bits each) the sort skips. */
export const BITMAP_LOW_PASSES = 2;

/** Helpers: the bucket of a key's bits (signed: the sign bit flipped, as the sort orders), block scans, bucket runs, bitmaps. */
function helpers(dt: DType): string {
  const flip = dt.kind === 'i' ? '0x80000000u' : '0u';
  return `
constexpr unsigned int FLIP = ${flip};
enum { WORDS = ${BITMAP_WORDS} };  // 65536 bits
__device__ __forceinline__ unsigned int bucket(const unsigned int x) { return (x ^ FLIP) >> 16; }
// Word r (0..7) of the calling thread: warp w owns words [256 w, 256 w + 256), its lanes interleaved.
__device__ __forceinline__ int word(const int r) { return ((threadIdx.x >> 5) << 8) + (r << 5) + (threadIdx.x & 31); }
// The exclusive prefix of c over the block (W warps) and the block's total; s_w holds W words.
template <int W>
__device__ __forceinline__ unsigned int block_scan(const unsigned int c, unsigned int* s_w, unsigned int& total) {
  const int lane = threadIdx.x & 31, warp = threadIdx.x >> 5;
  unsigned int x = c;
  #pragma unroll
  for (int o = 1; o < 32; o <<= 1) { const unsigned int y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
  if (lane == 31) s_w[warp] = x;
  __syncthreads();
  unsigned int pre = 0, all = 0;
  #pragma unroll
  for (int w = 0; w < W; w++) { const unsigned int v = s_w[w]; pre += w < warp ? v : 0u; all += v; }
  __syncthreads();
  total = all;
  return pre + x - c;
}
// Chunk [c0, c1) of the n sorted keys, the block's: blockIdx.x * chunk (64-bit: n may be near 2^32).
__device__ __forceinline__ void chunk_of(const unsigned int n, const unsigned int chunk, unsigned int& c0, unsigned int& c1) {
  const unsigned long long a = (unsigned long long)blockIdx.x * chunk, e = a + chunk;
  c0 = (unsigned int)a;
  c1 = (unsigned int)(e < n ? e : n);
}
// The run of keys from a (< c1): its bucket b, its end e in the chunk, the bucket's extent [sb, eb)
// (clamped to n, and eb past a: a damaged start still moves on).
__device__ __forceinline__ void run_at(const unsigned int* __restrict__ s, const unsigned int* __restrict__ starts,
    const unsigned int a, const unsigned int c1, const unsigned int n, unsigned int& b, unsigned int& e, unsigned int& sb,
    unsigned int& eb) {
  b = bucket(s[a]);
  sb = min(starts[b], n);
  eb = min(max(starts[b + 1], a + 1), n);
  e = min(eb, c1);
}
// The low 16 bits of s[a, e) set in the (zeroed) shared bitmap; every thread sees it after.
__device__ __forceinline__ void fill(unsigned int* bm, const unsigned int* __restrict__ s, const unsigned int a, const unsigned int e) {
  unsigned long long i = (unsigned long long)a + threadIdx.x;  // 64-bit before the add: e may be near 2^32
  for (; i + ${3 * BITMAP_BLOCK} < e; i += ${4 * BITMAP_BLOCK}) {  // four loads in flight
    unsigned int x[4];
    #pragma unroll
    for (int j = 0; j < 4; j++) x[j] = s[i + j * ${BITMAP_BLOCK}];
    #pragma unroll
    for (int j = 0; j < 4; j++) atomicOr(&bm[(x[j] & 0xffffu) >> 5], 1u << (x[j] & 31u));
  }
  for (; i < e; i += ${BITMAP_BLOCK}) { const unsigned int x = s[i]; atomicOr(&bm[(x & 0xffffu) >> 5], 1u << (x & 31u)); }
  __syncthreads();
}`;
}

const name = (what: string, dt: DType): string => `nc_unique_bm_${what}_${tag(dt)}`;

/** A kernel `nm` of `threads` a block: the helpers, then `body` after the early return of a narrow range. */
function kernel(nm: string, dt: DType, threads: number, params: string, body: string): { source: string; name: string } {
  const source = `
namespace ${nm}_ns {${helpers(dt)}
}
extern "C" __global__ void __launch_bounds__(${threads}) ${nm}(${params},
    const unsigned long long* __restrict__ range, const unsigned long long narrow) {
  using namespace ${nm}_ns;
  if (${RANGE_COUNTED}) return;${body}
}`;
  return { source, name: nm };
}

/** The bucket kernels' shared memory (the bitmap, zeroed, and a block scan's words) and the block's chunk [c0, c1). */
const CHUNK_SETUP = `
  __shared__ unsigned int bm[WORDS];
  __shared__ unsigned int s_w[${BITMAP_BLOCK / 32}];
  #pragma unroll
  for (int r = 0; r < 8; r++) bm[word(r)] = 0u;
  __syncthreads();
  unsigned int c0, c1;
  chunk_of(n, chunk, c0, c1);`;
/** The bucket kernels' first parameters: the sorted keys and the buckets' starts. */
const KEYS = 'const unsigned int* __restrict__ s, const unsigned int* __restrict__ starts';
/** The first and last bucket of prep's range. */
const BUCKETS = 'const unsigned int lo = (unsigned int)(range[0] >> 16), hi = (unsigned int)(range[1] >> 16);';

/**
 * starts[b] = the first of the `n` sorted keys whose bucket is at least b, for b from the least
 * key's bucket to one past the greatest's (that one: n). Each thread takes 4 keys.
 */
export function bitmapStartsKernel(dt: DType): { source: string; name: string } {
  return kernel(name('starts', dt), dt, 256, 'const unsigned int* __restrict__ s, unsigned int* __restrict__ starts, const unsigned int n', `
  ${BUCKETS}
  const bool vec = (reinterpret_cast<unsigned long long>(s) & 15u) == 0;
  for (unsigned long long i = 4ull * ((unsigned long long)blockIdx.x * blockDim.x + threadIdx.x); i < n;
       i += 4ull * gridDim.x * blockDim.x) {
    unsigned int x[4];
    if (vec && i + 4 <= n) {
      const uint4 v = *reinterpret_cast<const uint4*>(s + i);
      x[0] = v.x; x[1] = v.y; x[2] = v.z; x[3] = v.w;
    } else {
      #pragma unroll
      for (int j = 0; j < 4; j++) x[j] = i + j < n ? s[i + j] : 0u;
    }
    long long p = i ? (long long)bucket(s[i - 1]) : (long long)lo - 1;
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      if (i + j >= n) break;
      const long long h = (long long)bucket(x[j]);
      for (long long b = p + 1; b <= h; b++) starts[b] = (unsigned int)(i + j);
      p = h > p ? h : p;
    }
    if (i + 4 >= n) for (long long b = p + 1; b <= (long long)hi + 1; b++) starts[b] = n;
  }`);
}

/**
 * Per chunk: each bucket run's bitmap; cnt[b] = its bits when bucket b lies within the chunk, else
 * OR-ed into g (the bitmaps of the chunks, zeroed) at the chunk where the bucket starts.
 */
export function bitmapCountKernel(dt: DType): { source: string; name: string } {
  const params = `${KEYS}, unsigned int* __restrict__ cnt, unsigned int* __restrict__ g,
    const unsigned int n, const unsigned int chunk`;
  return kernel(name('count', dt), dt, BITMAP_BLOCK, params, `${CHUNK_SETUP}
  for (unsigned int a = c0; a < c1;) {
    unsigned int b, e, sb, eb;
    run_at(s, starts, a, c1, n, b, e, sb, eb);  // the same for every thread of the block
    fill(bm, s, a, e);
    const bool whole = sb >= c0 && eb <= c1;
    unsigned int* gb = g + (unsigned long long)min(sb / chunk, gridDim.x - 1) * WORDS;
    unsigned int c = 0;
    #pragma unroll
    for (int r = 0; r < 8; r++) {
      const unsigned int x = bm[word(r)];
      if (!x) continue;
      bm[word(r)] = 0u;
      if (whole) c += __popc(x);
      else atomicOr(gb + word(r), x);
    }
    if (whole) {
      unsigned int total;
      block_scan<${BITMAP_BLOCK / 32}>(c, s_w, total);
      if (threadIdx.x == 0) cnt[b] = total;
    } else {
      __syncthreads();
    }
    a = e;
  }`);
}

/** cnt[b] for the bucket that starts in the block's chunk and ends past it: the bits of the chunk's global bitmap. */
export function bitmapCrossKernel(dt: DType): { source: string; name: string } {
  const params = `${KEYS}, unsigned int* __restrict__ cnt, const unsigned int* __restrict__ g,
    const unsigned int n, const unsigned int chunk`;
  return kernel(name('cross', dt), dt, BITMAP_BLOCK, params, `
  __shared__ unsigned int s_w[${BITMAP_BLOCK / 32}];
  unsigned int c0, c1;
  chunk_of(n, chunk, c0, c1);
  const unsigned int b = bucket(s[c1 - 1]);
  const unsigned int sb = min(starts[b], n), eb = min(starts[b + 1], n);
  if (!(sb >= c0 && eb > c1)) return;  // the same for every thread of the block
  const unsigned int* gb = g + (unsigned long long)blockIdx.x * WORDS;
  unsigned int c = 0, total;
  #pragma unroll
  for (int r = 0; r < 8; r++) c += __popc(gb[word(r)]);
  block_scan<${BITMAP_BLOCK / 32}>(c, s_w, total);
  if (threadIdx.x == 0) cnt[b] = total;`);
}

/** off[b] = the sum of cnt over the buckets before b (from the least key's), their total to `total`: one block. */
export function bitmapScanKernel(): { source: string; name: string } {
  const W = BITMAP_SCAN_BLOCK / 32;
  const T = 4 * BITMAP_SCAN_BLOCK;
  const params = 'const unsigned int* __restrict__ cnt, unsigned int* __restrict__ off, unsigned int* __restrict__ total';
  return kernel('nc_unique_bm_scan', DTYPES.uint32, BITMAP_SCAN_BLOCK, params, `
  __shared__ unsigned int s_w[${W}];
  ${BUCKETS}
  unsigned int carry = 0;
  for (unsigned int base = lo; base <= hi; base += ${T}) {  // tiles of ${T} buckets, 4 consecutive a thread
    unsigned int x[4], c = 0, tile;
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned int b = base + 4 * threadIdx.x + j;
      x[j] = b <= hi ? cnt[b] : 0u;
      c += x[j];
    }
    unsigned int pre = carry + block_scan<${W}>(c, s_w, tile);
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned int b = base + 4 * threadIdx.x + j;
      if (b <= hi) off[b] = pre;
      pre += x[j];
    }
    carry += tile;
  }
  if (threadIdx.x == 0) *total = carry;`);
}

/**
 * The values: per chunk, each bucket that starts in it written in order from off[b] into `out`
 * (room for n): its bitmap built again when it ends in the chunk, else the chunk's global one. A
 * warp writes the values of 256 consecutive words, 32 a round (one run a round).
 */
export function bitmapResultKernel(dt: DType, write: 'bits' | 'slots' = BITMAP_WRITE): { source: string; name: string } {
  const params = `${KEYS}, const unsigned int* __restrict__ off, const unsigned int* __restrict__ g,
    unsigned int* __restrict__ out, const unsigned int n, const unsigned int chunk`;
  return kernel(name(write === 'bits' ? 'result' : 'result_slots', dt), dt, BITMAP_BLOCK, params, `${CHUNK_SETUP}
  const int lane = threadIdx.x & 31;
  for (unsigned int a = c0; a < c1;) {
    unsigned int b, e, sb, eb;
    run_at(s, starts, a, c1, n, b, e, sb, eb);  // the same for every thread of the block
    if (sb < c0) {  // written by the chunk where the bucket starts
      a = e;
      continue;
    }
    unsigned int x[8], c = 0, total;
    if (eb <= c1) {
      fill(bm, s, a, e);
      #pragma unroll
      for (int r = 0; r < 8; r++) { x[r] = bm[word(r)]; bm[word(r)] = 0u; }
    } else {
      const unsigned int* gb = g + (unsigned long long)blockIdx.x * WORDS;
      #pragma unroll
      for (int r = 0; r < 8; r++) x[r] = gb[word(r)];
    }
    #pragma unroll
    for (int r = 0; r < 8; r++) c += __popc(x[r]);
    const unsigned int pre = block_scan<${BITMAP_BLOCK / 32}>(c, s_w, total);  // also: every bm word cleared
    unsigned int base = off[b] + __shfl_sync(0xffffffffu, pre, 0);  // the warp's first value
    #pragma unroll
    for (int r = 0; r < 8; r++) {
      const unsigned int k = __popc(x[r]);
      unsigned int incl = k;
      #pragma unroll
      for (int o = 1; o < 32; o <<= 1) { const unsigned int y = __shfl_up_sync(0xffffffffu, incl, o); if (lane >= o) incl += y; }
${write === 'bits' ? BITS_WRITE : SLOTS_WRITE}
    }
    a = e;
  }`);
}

/**
 * How the result kernel writes a round's values (NODECUDA_UNIQUE_BITMAP_WRITE, read once at load;
 * 'bits', the default, GPU-tested: each lane its word's set bits, as many stores a round as the
 * largest popcount of the warp's words; 'slots', not yet measured or run on a GPU: each lane a
 * 32nd of the round's values, found by a binary search over the warp's prefix counts and __fns,
 * one coalesced store per 32 values).
 */
export const BITMAP_WRITE: 'bits' | 'slots' = process.env.NODECUDA_UNIQUE_BITMAP_WRITE === 'slots' ? 'slots' : 'bits';

/** The 'bits' write: lane by lane, its word's set bits in order from its prefix. */
const BITS_WRITE = `
      unsigned int pos = base + incl - k, w = x[r];
      const unsigned int v0 = (b << 16) | ((unsigned int)word(r) << 5);
      while (w) {
        const unsigned int bit = (unsigned int)(__ffs(w) - 1);
        w &= w - 1u;
        if (pos < n) out[pos] = (v0 | bit) ^ FLIP;
        pos++;
      }
      base += __shfl_sync(0xffffffffu, incl, 31);`;

/** The 'slots' write: value j of the round by lane j % 32 (its word: the first lane whose prefix passes j). */
const SLOTS_WRITE = `
      const unsigned int all = __shfl_sync(0xffffffffu, incl, 31);
      const unsigned int w0 = (b << 16) | ((unsigned int)(word(r) - lane) << 5);  // the round's first word
      for (unsigned int j0 = 0; j0 < all; j0 += 32) {  // the same for every lane
        const unsigned int j = j0 + lane;
        int src = 0;
        #pragma unroll
        for (int step = 16; step; step >>= 1) if (__shfl_sync(0xffffffffu, incl, src + step - 1) <= j) src += step;
        const unsigned int w = __shfl_sync(0xffffffffu, x[r], src), before = __shfl_sync(0xffffffffu, incl - k, src);
        if (j < all && base + j < n) out[base + j] = (w0 + ((unsigned int)src << 5) + __fns(w, 0u, (int)(j - before) + 1)) ^ FLIP;
      }
      base += all;`;

/** unique's bitmap kernels of a 4-byte integer dtype but the scan, both writes (codegen tests). */
export function bitmapKernelsFor(dt: DType): Array<{ source: string; name: string }> {
  return [bitmapStartsKernel(dt), bitmapCountKernel(dt), bitmapCrossKernel(dt), bitmapResultKernel(dt, 'bits'),
    bitmapResultKernel(dt, 'slots')];
}
