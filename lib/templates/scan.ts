/**
 * The scan kernel family: single-pass prefix scan with decoupled look-back. Tiles of 256 threads
 * × IT items are taken in ticket order (an atomic counter, so every predecessor is running);
 * each tile loads its input coalesced into shared memory, scans it (thread-local, then warp
 * shuffles, then the warp totals), publishes its aggregate, looks back over its predecessors'
 * published aggregates/inclusive prefixes until it finds an inclusive one, publishes its own
 * inclusive prefix and writes its outputs coalesced. Status words carry a per-launch epoch, so the
 * status array never needs clearing. Segments (a start flag per element) restart the scan: partial
 * results are (flags, value) pairs, flags = has-value | contains-segment-start, so no neutral
 * element is needed for the scan itself.
 */

/** What a scan computes (CUDA C strings). */
export interface ScanSpec {
  name: string;
  /** Scan value C type. */
  acc: string;
  /** Bytes of acc (multiple of 4). */
  accBytes: number;
  /** Expression in `a`, `b`: a then b (associative; need not commute). */
  scan: string;
  /** Value of `prev_item` for the first element and at segment starts. */
  neutral: string;
  /** Kernel parameters (arrays and scalars), C declarations. */
  params: string;
  /** Expression of type acc: the input of element `i` (long long). */
  input: string;
  /** Statement writing element `i` from `item` (inclusive) and `prev_item` (exclusive). */
  output: string;
  /** Bool expression in `i`: element i starts a segment. */
  segment?: string;
  /** Device code before the kernel. */
  preamble?: string;
}

export const SCAN_BLOCK = 256;

/** Items per thread for an accumulator size (tiles of ~16 KiB of shared memory). */
export function scanItems(accBytes: number): number {
  return Math.max(1, Math.min(16, Math.floor(16384 / (SCAN_BLOCK * accBytes))));
}

/** Kernel source (needs PREAMBLE and REDUCE_PREAMBLE before it). */
export function scanKernel(spec: ScanSpec): { source: string; name: string } {
  const name = spec.name;
  const IT = scanItems(spec.accBytes);
  const B = SCAN_BLOCK;
  const seg = spec.segment ? `(${spec.segment})` : 'false';
  const source = `
${spec.preamble ?? ''}
namespace ${name}_ns {
typedef ${spec.acc} acc_t;
__device__ __forceinline__ acc_t op(acc_t a, acc_t b) { return (${spec.scan}); }
// (flags, value): flags bit 0 = has a value, bit 1 = contains a segment start.
__device__ __forceinline__ void combine(int lf, acc_t lv, int& rf, acc_t& rv) {
  if (!(rf & 1)) { rf = lf; rv = lv; return; }
  if (!(lf & 1) || (rf & 2)) { rf |= lf & 2; return; }
  rv = op(lv, rv);
  rf |= lf;
}
}
extern "C" __global__ void __launch_bounds__(${B}) ${name}(${spec.params}${spec.params ? ', ' : ''}const long long n,
    unsigned int *__restrict__ status, ${name}_ns::acc_t *__restrict__ aggs, ${name}_ns::acc_t *__restrict__ incls,
    unsigned int *__restrict__ ticket, const unsigned int epoch) {
  using namespace ${name}_ns;
  constexpr int IT = ${IT}, TILE = ${B} * IT;
  __shared__ __align__(16) unsigned char raw[(TILE + TILE / 32) * sizeof(acc_t)];
  acc_t* sv = reinterpret_cast<acc_t*>(raw);
  __shared__ __align__(16) unsigned char wraw[${B / 32} * sizeof(acc_t)];
  acc_t* wv = reinterpret_cast<acc_t*>(wraw);
  __shared__ int wf[${B / 32}];
  __shared__ __align__(16) unsigned char praw[sizeof(acc_t)];
  acc_t& tile_prefix = *reinterpret_cast<acc_t*>(praw);
  __shared__ int tile_pf;
  __shared__ unsigned int tile_s;
  const int t = threadIdx.x, lane = t & 31, warp = t >> 5;
  if (t == 0) {
    tile_s = atomicAdd(ticket, 1u);
    if (tile_s == gridDim.x - 1) *ticket = 0;  // the last ticket: leave the counter zeroed
  }
  __syncthreads();
  const unsigned int tile = tile_s;
  const long long base = (long long)tile * TILE;
  #define NC_PAD(s) ((s) + ((s) >> 5))
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const int s = j * ${B} + t;
    const long long i = base + s;
    if (i < n) sv[NC_PAD(s)] = (acc_t)(${spec.input});
  }
  __syncthreads();
  // Thread-local scan of items t*IT .. t*IT+IT-1.
  int lf = 0;
  acc_t lv;
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const int s = t * IT + j;
    const long long i = base + s;
    if (i < n) {
      int xf = 1 | (${seg} ? 2 : 0);
      acc_t xv = sv[NC_PAD(s)];
      combine(lf, lv, xf, xv);
      lf = xf; lv = xv;
    }
  }
  // Warp inclusive scan of the thread totals.
  int f = lf;
  acc_t v = lv;
  #pragma unroll
  for (int d = 1; d < 32; d <<= 1) {
    const acc_t uv = nc_shfl_up(v, d);
    const int uf = __shfl_up_sync(0xffffffffu, f, d);
    if (lane >= d) combine(uf, uv, f, v);
  }
  if (lane == 31) { wf[warp] = f; wv[warp] = v; }
  // Exclusive within the warp.
  int ef = __shfl_up_sync(0xffffffffu, f, 1);
  acc_t ev = nc_shfl_up(v, 1);
  if (lane == 0) ef = 0;
  __syncthreads();
  if (warp == 0) {
    // Lane 0 scans the warp totals (in place, exclusive) and finds the tile aggregate.
    int af = 0;
    acc_t av;
    if (lane == 0) {
      for (int w = 0; w < ${B / 32}; w++) {
        int xf = wf[w];
        acc_t xv = wv[w];
        wf[w] = af; wv[w] = av;
        combine(af, av, xf, xv);
        af = xf; av = xv;
      }
    }
    af = __shfl_sync(0xffffffffu, af, 0);
    av = nc_shfl(av, 0);
    const unsigned int e = (epoch & 0x3fffffffu) << 2;
    // Publish: the inclusive prefix when known now (first tile, or a segment starts here).
    if (lane == 0) {
      if (tile == 0 || (af & 2)) nc_st_cg(&incls[tile], av); else nc_st_cg(&aggs[tile], av);
      __threadfence();
      *(volatile unsigned int*)&status[tile] = e | ((tile == 0 || (af & 2)) ? 2u : 1u);
    }
    // Look back 32 predecessors at a time: lane l reads tile - 1 - l - 32k.
    int pf = 0;
    acc_t pv;
    if (tile > 0) {
      long long j = (long long)tile - 1 - lane;
      while (true) {
        unsigned int st = e | 2u;
        if (j >= 0) {
          do { st = *(volatile unsigned int*)&status[j]; } while ((st & ~3u) != e || (st & 3u) == 0);
        }
        __threadfence();
        const bool incl = (st & 3u) == 2u;
        const unsigned int stop_mask = __ballot_sync(0xffffffffu, incl);
        const int stop = stop_mask ? __ffs(stop_mask) - 1 : 31;
        int xf = 0;
        acc_t xv;
        if (lane <= stop && j >= 0) { xf = 1; xv = incl ? nc_ld_cg(&incls[j]) : nc_ld_cg(&aggs[j]); }
        // Ordered combination: higher lanes are earlier tiles (on the left).
        #pragma unroll
        for (int d = 1; d < 32; d <<= 1) {
          const int of = __shfl_down_sync(0xffffffffu, xf, d);
          const acc_t ov = nc_shfl_down(xv, d);
          if (lane + d < 32) combine(of, ov, xf, xv);
        }
        if (lane == 0) combine(xf, xv, pf, pv);
        if (stop_mask) break;
        j -= 32;
      }
      if (lane == 0 && !(af & 2)) {
        int xf = af;
        acc_t xv = av;
        combine(pf, pv, xf, xv);
        nc_st_cg(&incls[tile], xv);
        __threadfence();
        *(volatile unsigned int*)&status[tile] = e | 2u;
      }
    }
    if (lane == 0) {
      tile_pf = pf & 1;
      if (pf & 1) tile_prefix = pv;
    }
  }
  __syncthreads();
  // This thread's exclusive prefix: tile prefix, then the warps before, then the lanes before.
  int rf = ef;
  acc_t rv = ev;
  { int wf0 = wf[warp]; acc_t wv0 = wv[warp]; combine(wf0, wv0, rf, rv); }
  { acc_t p = tile_prefix; combine(tile_pf, p, rf, rv); }
  // Rescan the items with the prefix; items go back to shared memory.
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const int s = t * IT + j;
    const long long i = base + s;
    if (i < n) {
      const acc_t x = sv[NC_PAD(s)];
      if ((rf & 1) && !${seg}) rv = op(rv, x); else rv = x;
      rf = 1;
      sv[NC_PAD(s)] = rv;
    }
  }
  __syncthreads();
  #pragma unroll
  for (int j = 0; j < IT; j++) {
    const int s = j * ${B} + t;
    const long long i = base + s;
    if (i < n) {
      const acc_t item = sv[NC_PAD(s)];
      acc_t prev_item = (${spec.neutral});
      if (!${seg}) {
        if (s > 0) prev_item = sv[NC_PAD(s - 1)];
        else if (tile_pf) prev_item = tile_prefix;
      }
      (void)item; (void)prev_item;
      { ${spec.output} }
    }
  }
  #undef NC_PAD
}`;
  return { source, name };
}
