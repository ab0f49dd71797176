/**
 * The scan kernel family: single-pass prefix scan with decoupled look-back. Tiles of SCAN_BLOCK threads
 * × IT items are taken in ticket order (an atomic counter, so every predecessor is running);
 * each tile loads its input coalesced into shared memory, scans it (thread-local, then warp
 * shuffles, then the warp totals), publishes its aggregate, looks back over its predecessors'
 * published aggregates/inclusive prefixes until it finds an inclusive one, publishes its own
 * inclusive prefix and writes its outputs coalesced. Status words carry a per-launch epoch, so the
 * status array never needs clearing. Segments (a start flag per element) restart the scan: partial
 * results are (flags, value) pairs, flags = has-value | contains-segment-start, so no neutral
 * element is needed for the scan itself.
 */
import { envFlag, envNumber } from '../../base/env';

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
  /**
   * When `input` reads one contiguous array `ptr` (element type `storage`, `bytes` each): the
   * same input as an expression of `nc_x`, the loaded element, so full tiles load 16-byte vectors.
   */
  vector?: { ptr: string; storage: string; bytes: number; input: string };
}

// Tuning (environment overrides for sweeps): threads per tile (NODECUDA_SCAN_BLOCK), shared memory
// per tile (NODECUDA_SCAN_TILE_BYTES, at most ~44 KiB), resident blocks per SM asked of the register
// allocator (NODECUDA_SCAN_MIN_BLOCKS, 0 = no bound), and the look-back's sleeps (below).
// H200, cumsum 2^28 float32, GB/s r+w: 256 threads × 32 KiB tiles, 6 blocks, no sleeps 2380-2480;
// the same with sleeps 2540-2590; 128 × 16 KiB, 6 blocks, sleeps 2900-3010 (float64 3290 vs 3095);
// 128 × 12 KiB 2640-2790; 192 × 24 KiB 2380; 64 × 8 KiB 2480; without the first sleep 2785.
// Full tiles are loaded without bounds checks (NODECUDA_SCAN_FULL=0 turns it off: 2363 → 2256 at
// 256 × 32 KiB).
export const SCAN_BLOCK = envNumber('NODECUDA_SCAN_BLOCK', 128, { min: 32, max: 1024, multipleOf: 32 });
const TILE_BYTES = envNumber('NODECUDA_SCAN_TILE_BYTES', 16384, { min: 256, max: 45056 });
const FULL_TILES = envFlag('NODECUDA_SCAN_FULL', true);
// Full tiles of cumsum/cumprod and the scan builders load 16-byte vectors (NODECUDA_SCAN_VECTOR=0:
// off). H200, cumsum 2^28 float32 / int32: 2338 / 2411 GB/s without, 2410-2480 / 2480-2520 with.
const VECTOR_LOADS = envFlag('NODECUDA_SCAN_VECTOR', true);
const MIN_BLOCKS = envNumber('NODECUDA_SCAN_MIN_BLOCKS', 6, { min: 0, max: 32 });
// Look-back sleeps, as CUB's fixed delay (its sm_90 values for float sums): __nanosleep before a
// tile starts looking back (ns, NODECUDA_SCAN_SLEEP_FIRST) and before each poll of a predecessor's
// status (NODECUDA_SCAN_SLEEP), in launches of at least 500 tiles. Spinning without them takes
// memory-system bandwidth from the tiles still loading and storing.
const SLEEP_FIRST = envNumber('NODECUDA_SCAN_SLEEP_FIRST', 1140, { min: 0, max: 1e6 });
const SLEEP = envNumber('NODECUDA_SCAN_SLEEP', 688, { min: 0, max: 1e6 });
const sleep = (ns: number): string => (ns ? `
#if __CUDA_ARCH__ >= 700
        if (gridDim.x >= 500) __nanosleep(${ns});
#endif
` : '');

/** Items per thread for an accumulator size (tiles of about TILE_BYTES of shared memory). */
export function scanItems(accBytes: number): number {
  return Math.max(1, Math.min(32, Math.floor(TILE_BYTES / (SCAN_BLOCK * accBytes))));
}

/**
 * Whether tiles publish (status, value) as one 8- or 16-byte word (values of 4 or 8 bytes): one
 * store and one load, no fences. Wider values use separate status and value arrays with fences.
 */
export function scanPacked(accBytes: number): boolean {
  return accBytes === 4 || accBytes === 8;
}

function packedHelpers(accBytes: number): string {
  const pw = accBytes === 4 ? 2 : 4;
  const regs = Array.from({ length: pw }, (_, j) => `%${j + 1}`).join(', ');
  const outs = Array.from({ length: pw }, (_, j) => `"=r"(w[${j}])`).join(', ');
  const ins = Array.from({ length: pw }, (_, j) => `"r"(w[${j}])`).join(', ');
  return `
constexpr int NC_PW = ${pw};
// Word 0: status (epoch << 2 | 1 aggregate / 2 inclusive); the value in the last ${accBytes / 4} word(s).
__device__ __forceinline__ void nc_pub(unsigned int* p, unsigned int st, nc_acc_t v) {
  unsigned int w[${pw}] = {};
  w[0] = st;
  memcpy(&w[${pw - accBytes / 4}], &v, ${accBytes});
  asm volatile("st.volatile.global.v${pw}.u32 [%0], {${regs}};" :: "l"(p), ${ins} : "memory");
}
__device__ __forceinline__ unsigned int nc_peek(const unsigned int* p, nc_acc_t& v) {
  unsigned int w[${pw}];
  asm volatile("ld.volatile.global.v${pw}.u32 {${Array.from({ length: pw }, (_, j) => `%${j}`).join(', ')}}, [%${pw}];" : ${outs} : "l"(p) : "memory");
  memcpy(&v, &w[${pw - accBytes / 4}], ${accBytes});
  return w[0];
}`;
}

/** Full-tile loads of 16-byte vectors (thread t takes vectors t, t + B, ...) when `ptr` is aligned. */
function vectorLoads(spec: ScanSpec, it: number): string {
  const vl = spec.vector;
  const v = vl ? 16 / vl.bytes : 0;
  if (!vl || !VECTOR_LOADS || v < 2 || it % v !== 0) return '';
  return `
    if ((reinterpret_cast<unsigned long long>(${vl.ptr}) & 15) == 0) {
      #pragma unroll
      for (int nc_k = 0; nc_k < nc_IT / ${v}; nc_k++) {
        const int nc_s0 = (nc_k * ${SCAN_BLOCK} + nc_t) * ${v};
        const nc_vec<${vl.storage}, ${v}> nc_vv = *reinterpret_cast<const nc_vec<${vl.storage}, ${v}>*>(${vl.ptr} + nc_base + nc_s0);
        #pragma unroll
        for (int nc_q = 0; nc_q < ${v}; nc_q++) {
          const ${vl.storage} nc_x = nc_vv.v[nc_q];
          nc_sv[NC_PAD(nc_s0 + nc_q)] = (nc_acc_t)(${vl.input});
        }
      }
    } else`;
}

/** Kernel source (needs PREAMBLE and REDUCE_PREAMBLE before it). */
export function scanKernel(spec: ScanSpec): { source: string; name: string } {
  const name = spec.name;
  const IT = scanItems(spec.accBytes);
  const B = SCAN_BLOCK;
  const seg = spec.segment ? `(${spec.segment})` : 'false';
  const packed = scanPacked(spec.accBytes);
  const source = `
${spec.preamble ?? ''}
namespace ${name}_ns {
typedef ${spec.acc} nc_acc_t;
__device__ __forceinline__ nc_acc_t nc_op(nc_acc_t a, nc_acc_t b) { return (${spec.scan}); }
// (flags, value): flags bit 0 = has a value, bit 1 = contains a segment start.
__device__ __forceinline__ void nc_combine(int nc_lf, nc_acc_t nc_lv, int& nc_rf, nc_acc_t& nc_rv) {
  if (!(nc_rf & 1)) { nc_rf = nc_lf; nc_rv = nc_lv; return; }
  if (!(nc_lf & 1) || (nc_rf & 2)) { nc_rf |= nc_lf & 2; return; }
  nc_rv = nc_op(nc_lv, nc_rv);
  nc_rf |= nc_lf;
}${packed ? packedHelpers(spec.accBytes) : ''}
}
extern "C" __global__ void __launch_bounds__(${B}${MIN_BLOCKS ? `, ${MIN_BLOCKS}` : ''}) ${name}(${spec.params}${spec.params ? ', ' : ''}const long long n,
    unsigned int *__restrict__ nc_status, ${name}_ns::nc_acc_t *__restrict__ nc_aggs, ${name}_ns::nc_acc_t *__restrict__ nc_incls,
    unsigned int *__restrict__ nc_ticket, const unsigned int nc_epoch) {
  using namespace ${name}_ns;${packed ? `
  unsigned int* nc_desc = reinterpret_cast<unsigned int*>(nc_aggs);  // packed (status, value) words` : ''}
  constexpr int nc_IT = ${IT}, nc_TILE = ${B} * nc_IT;
  __shared__ __align__(16) unsigned char nc_raw[(nc_TILE + nc_TILE / 32) * sizeof(nc_acc_t)];
  nc_acc_t* nc_sv = reinterpret_cast<nc_acc_t*>(nc_raw);
  __shared__ __align__(16) unsigned char nc_wraw[${B / 32} * sizeof(nc_acc_t)];
  nc_acc_t* nc_wv = reinterpret_cast<nc_acc_t*>(nc_wraw);
  __shared__ int nc_wf[${B / 32}];
  __shared__ __align__(16) unsigned char nc_praw[sizeof(nc_acc_t)];
  nc_acc_t& nc_tile_prefix = *reinterpret_cast<nc_acc_t*>(nc_praw);
  __shared__ int nc_tile_pf;
  __shared__ unsigned int nc_tile_s;
  const int nc_t = threadIdx.x, nc_lane = nc_t & 31, nc_warp = nc_t >> 5;
  if (nc_t == 0) {
    nc_tile_s = atomicAdd(nc_ticket, 1u);
    if (nc_tile_s == gridDim.x - 1) *nc_ticket = 0;  // the last ticket: leave the counter zeroed
  }
  __syncthreads();
  const unsigned int nc_tile = nc_tile_s;
  const long long nc_base = (long long)nc_tile * nc_TILE;
  #define NC_PAD(nc_s) ((nc_s) + ((nc_s) >> 5))
  const bool nc_full = nc_base + nc_TILE <= n;${FULL_TILES ? `
  if (nc_full) {  // no bounds checks: every load of the tile can be in flight at once${vectorLoads(spec, IT)}
    #pragma unroll
    for (int nc_j = 0; nc_j < nc_IT; nc_j++) {
      const int nc_s = nc_j * ${B} + nc_t;
      const long long i = nc_base + nc_s;
      nc_sv[NC_PAD(nc_s)] = (nc_acc_t)(${spec.input});
    }
  } else` : ''} {
    #pragma unroll
    for (int nc_j = 0; nc_j < nc_IT; nc_j++) {
      const int nc_s = nc_j * ${B} + nc_t;
      const long long i = nc_base + nc_s;
      if (i < n) nc_sv[NC_PAD(nc_s)] = (nc_acc_t)(${spec.input});
    }
  }
  __syncthreads();
  // Thread-local scan of items t*IT .. t*IT+IT-1.
  int nc_lf = 0;
  nc_acc_t nc_lv;
  #pragma unroll
  for (int nc_j = 0; nc_j < nc_IT; nc_j++) {
    const int nc_s = nc_t * nc_IT + nc_j;
    const long long i = nc_base + nc_s;
    if (i < n) {
      int nc_xf = 1 | (${seg} ? 2 : 0);
      nc_acc_t nc_xv = nc_sv[NC_PAD(nc_s)];
      nc_combine(nc_lf, nc_lv, nc_xf, nc_xv);
      nc_lf = nc_xf; nc_lv = nc_xv;
    }
  }
  // Warp inclusive scan of the thread totals.
  int nc_f = nc_lf;
  nc_acc_t nc_v = nc_lv;
  #pragma unroll
  for (int nc_d = 1; nc_d < 32; nc_d <<= 1) {
    const nc_acc_t nc_uv = nc_shfl_up(nc_v, nc_d);
    const int nc_uf = __shfl_up_sync(0xffffffffu, nc_f, nc_d);
    if (nc_lane >= nc_d) nc_combine(nc_uf, nc_uv, nc_f, nc_v);
  }
  if (nc_lane == 31) { nc_wf[nc_warp] = nc_f; nc_wv[nc_warp] = nc_v; }
  // Exclusive within the warp.
  int nc_ef = __shfl_up_sync(0xffffffffu, nc_f, 1);
  nc_acc_t nc_ev = nc_shfl_up(nc_v, 1);
  if (nc_lane == 0) nc_ef = 0;
  __syncthreads();
  if (nc_warp == 0) {
    // Lane 0 scans the warp totals (in place, exclusive) and finds the tile aggregate.
    int nc_af = 0;
    nc_acc_t nc_av;
    if (nc_lane == 0) {
      for (int nc_w = 0; nc_w < ${B / 32}; nc_w++) {
        int nc_xf = nc_wf[nc_w];
        nc_acc_t nc_xv = nc_wv[nc_w];
        nc_wf[nc_w] = nc_af; nc_wv[nc_w] = nc_av;
        nc_combine(nc_af, nc_av, nc_xf, nc_xv);
        nc_af = nc_xf; nc_av = nc_xv;
      }
    }
    nc_af = __shfl_sync(0xffffffffu, nc_af, 0);
    nc_av = nc_shfl(nc_av, 0);
    const unsigned int nc_e = (nc_epoch & 0x3fffffffu) << 2;
    // Publish: the inclusive prefix when known now (first tile, or a segment starts here).
    if (nc_lane == 0) {${packed ? `
      nc_pub(nc_desc + (long long)nc_tile * NC_PW, nc_e | ((nc_tile == 0 || (nc_af & 2)) ? 2u : 1u), nc_av);` : `
      if (nc_tile == 0 || (nc_af & 2)) nc_st_cg(&nc_incls[nc_tile], nc_av); else nc_st_cg(&nc_aggs[nc_tile], nc_av);
      __threadfence();
      *(volatile unsigned int*)&nc_status[nc_tile] = nc_e | ((nc_tile == 0 || (nc_af & 2)) ? 2u : 1u);`}
    }
    // Look back 32 predecessors at a time: lane l reads tile - 1 - l - 32k.
    int nc_pf = 0;
    nc_acc_t nc_pv;
    if (nc_tile > 0) {
      long long nc_j = (long long)nc_tile - 1 - nc_lane;${sleep(SLEEP_FIRST)}
      while (true) {
        unsigned int nc_st = nc_e | 2u;${packed ? `
        nc_acc_t nc_got;
        if (nc_j >= 0) {
          do { ${sleep(SLEEP)} nc_st = nc_peek(nc_desc + nc_j * NC_PW, nc_got); } while ((nc_st & ~3u) != nc_e || (nc_st & 3u) == 0);
        }` : `
        if (nc_j >= 0) {
          do { ${sleep(SLEEP)} nc_st = *(volatile unsigned int*)&nc_status[nc_j]; } while ((nc_st & ~3u) != nc_e || (nc_st & 3u) == 0);
        }
        __threadfence();`}
        const bool nc_incl = (nc_st & 3u) == 2u;
        const unsigned int nc_stop_mask = __ballot_sync(0xffffffffu, nc_incl);
        const int nc_stop = nc_stop_mask ? __ffs(nc_stop_mask) - 1 : 31;
        int nc_xf = 0;
        nc_acc_t nc_xv;
        if (nc_lane <= nc_stop && nc_j >= 0) { nc_xf = 1; nc_xv = ${packed ? 'nc_got' : 'nc_incl ? nc_ld_cg(&nc_incls[nc_j]) : nc_ld_cg(&nc_aggs[nc_j])'}; }
        // Ordered combination: higher lanes are earlier tiles (on the left).
        #pragma unroll
        for (int nc_d = 1; nc_d < 32; nc_d <<= 1) {
          const int nc_of = __shfl_down_sync(0xffffffffu, nc_xf, nc_d);
          const nc_acc_t nc_ov = nc_shfl_down(nc_xv, nc_d);
          if (nc_lane + nc_d < 32) nc_combine(nc_of, nc_ov, nc_xf, nc_xv);
        }
        if (nc_lane == 0) nc_combine(nc_xf, nc_xv, nc_pf, nc_pv);
        if (nc_stop_mask) break;
        nc_j -= 32;
      }
      if (nc_lane == 0 && !(nc_af & 2)) {
        int nc_xf = nc_af;
        nc_acc_t nc_xv = nc_av;
        nc_combine(nc_pf, nc_pv, nc_xf, nc_xv);
${packed ? `        nc_pub(nc_desc + (long long)nc_tile * NC_PW, nc_e | 2u, nc_xv);` : `        nc_st_cg(&nc_incls[nc_tile], nc_xv);
        __threadfence();
        *(volatile unsigned int*)&nc_status[nc_tile] = nc_e | 2u;`}
      }
    }
    if (nc_lane == 0) {
      nc_tile_pf = nc_pf & 1;
      if (nc_pf & 1) nc_tile_prefix = nc_pv;
    }
  }
  __syncthreads();
  // This thread's exclusive prefix: tile prefix, then the warps before, then the lanes before.
  int nc_rf = nc_ef;
  nc_acc_t nc_rv = nc_ev;
  { int nc_wf0 = nc_wf[nc_warp]; nc_acc_t nc_wv0 = nc_wv[nc_warp]; nc_combine(nc_wf0, nc_wv0, nc_rf, nc_rv); }
  { nc_acc_t nc_p = nc_tile_prefix; nc_combine(nc_tile_pf, nc_p, nc_rf, nc_rv); }
  // Rescan the items with the prefix; items go back to shared memory.
  #pragma unroll
  for (int nc_j = 0; nc_j < nc_IT; nc_j++) {
    const int nc_s = nc_t * nc_IT + nc_j;
    const long long i = nc_base + nc_s;
    if (i < n) {
      const nc_acc_t nc_x = nc_sv[NC_PAD(nc_s)];
      if ((nc_rf & 1) && !${seg}) nc_rv = nc_op(nc_rv, nc_x); else nc_rv = nc_x;
      nc_rf = 1;
      nc_sv[NC_PAD(nc_s)] = nc_rv;
    }
  }
  __syncthreads();
  #pragma unroll
  for (int nc_j = 0; nc_j < nc_IT; nc_j++) {
    const int nc_s = nc_j * ${B} + nc_t;
    const long long i = nc_base + nc_s;
    if (nc_full || i < n) {
      const nc_acc_t item = nc_sv[NC_PAD(nc_s)];
      nc_acc_t prev_item = (${spec.neutral});
      if (!${seg}) {
        if (nc_s > 0) prev_item = nc_sv[NC_PAD(nc_s - 1)];
        else if (nc_tile_pf) prev_item = nc_tile_prefix;
      }
      (void)item; (void)prev_item;
      { ${spec.output} }
    }
  }
  #undef NC_PAD
}`;
  return { source, name };
}
