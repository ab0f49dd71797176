/**
 * topk and partition of long rows by radix selection (engine/select.ts runs them): instead of
 * sorting a whole row, find the k-th smallest key of each row one 8-bit digit at a time, most
 * significant first; then topk gathers the k selected elements and sorts only those, partition
 * writes every element around the k-th.
 *
 * Keys are the sort's order-preserving transform (sort_keys.ts: NaNs last and equal, -0.0 before
 * +0.0), all bits flipped for topk's k largest, so that both select the k smallest keys; among
 * equal keys topk's order is by column, reversed for the largest (torch.topk as nodecuda documents
 * it: the reverse of the stable ascending sort).
 *
 * - `hist` (one launch a digit; blocks of 256, B blocks a row, each a chunk of the row): counts
 *   the digit of the keys whose higher digits equal the row's prefix so far, into a shared then
 *   the row's global histogram; the row's last block (a ticket) finds the digit where the count
 *   reaches k, appends it to the prefix and adds the counts below it to `below`; after the last
 *   digit the prefix is the k-th key itself and `eq` how many keys equal it.
 * - `compact` counts (first launch) then writes (second launch), in column order. topk: the keys
 *   below the k-th and the needed equal ones (the first k − below, or the last for the largest)
 *   with their columns into k slots a row, the first in the slots' order for the smallest, the
 *   last for the largest, so that a stable sort of the slots by key gives the result's order;
 *   after that sort (the short-row sort, or the radix sort for k > 4096), `gather` writes each
 *   rank's value (from the input, bits as they are) and column. partition: every element, the
 *   smaller keys, then the equal ones, then the larger ones (a stable three-way partition).
 *
 * Row state, 8 words a row: prefix (2 words), below, eq, ticket; the histograms, 256 words a row;
 * zeroed before the first digit, left zeroed (histograms, tickets) by each digit's last block.
 */
import { DType } from '../../base/dtype';
import { tag, transforms, uintC } from './sort_keys';

/** Words of a row's state. */
export const SELECT_STATE_WORDS = 8;
/** Elements a block takes per loop step (256 threads × 4). */
export const SELECT_TILE = 1024;

/** Bytes of `dt`'s key (bool: one byte). */
export function selectKeyBytes(dt: DType): number {
  return dt.kind === 'b' ? 1 : dt.bytes;
}

/** Common code: the transform, the row's bounds and its key reader. */
function head(dt: DType, name: string): string {
  const kb = selectKeyBytes(dt);
  return `
namespace ${name}_ns {${transforms(dt, kb)}
typedef ${uintC(kb)} K;
}`;
}

const ARGS = `const void* __restrict__ in_, const unsigned int len, const unsigned int B, const unsigned int chunk,
    const unsigned long long flip, const unsigned int k, unsigned int* __restrict__ state`;
const ROW = `  const unsigned int row = blockIdx.x / B, b = blockIdx.x % B, t = threadIdx.x;
  const K* __restrict__ in = reinterpret_cast<const K*>(in_) + (unsigned long long)row * len;
  unsigned int* const st = state + (unsigned long long)row * ${SELECT_STATE_WORDS};
  const unsigned long long begin = (unsigned long long)b * chunk, end = min((unsigned long long)len, begin + chunk);
  const unsigned long long prefix = (unsigned long long)st[0] | ((unsigned long long)st[1] << 32);`;
/** Loads the keys of tile `i0` (4 a thread, 256 apart) into key[4] with valid[4]. */
const LOAD = `    K key[4];
    bool valid[4];
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned long long i = i0 + j * 256u + t;
      valid[j] = i < end;
      key[j] = valid[j] ? (K)(nc_tf(in[i]) ^ (K)flip) : (K)0;
    }`;

/**
 * The histogram kernel of one digit: (in, len, B, chunk, flip, k, state, hist, shift, first, last),
 * grid rows × B, 256 threads.
 */
export function selectHistKernel(dt: DType): { source: string; name: string } {
  const name = `nc_select_hist_${tag(dt)}`;
  const source = `${head(dt, name)}
extern "C" __global__ void __launch_bounds__(256) ${name}(${ARGS}, unsigned int* __restrict__ hist, const int shift,
    const int first, const int last) {
  using namespace ${name}_ns;
${ROW}
  unsigned int* const h = hist + (unsigned long long)row * 256;
  __shared__ unsigned int sh[256];
  __shared__ int s_last;
  __shared__ unsigned int s_w[8];
  sh[t] = 0;
  __syncthreads();
  for (unsigned long long i0 = begin; i0 < end; i0 += ${SELECT_TILE}u) {
${LOAD}
#pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned long long x = key[j];
      if (valid[j] && (first || (x >> (shift + 8)) == prefix)) atomicAdd(&sh[(unsigned int)(x >> shift) & 255u], 1u);
    }
  }
  __syncthreads();
  if (sh[t]) atomicAdd(&h[t], sh[t]);
  __threadfence();
  __syncthreads();
  if (t == 0) s_last = atomicAdd(&st[4], 1u) == B - 1;
  __syncthreads();
  if (!s_last) return;
  // The row's last block: every block's counts are in h. Find the digit where the count reaches
  // what is still needed (k − below), scanning the 256 counts.
  __threadfence();
  const unsigned int c = __ldcg(&h[t]);
  h[t] = 0;
  const unsigned int lane = t & 31, w = t >> 5;
  unsigned int x = c;
#pragma unroll
  for (int o = 1; o < 32; o <<= 1) { const unsigned int y = __shfl_up_sync(0xffffffffu, x, o); if (lane >= o) x += y; }
  if (lane == 31) s_w[w] = x;
  __syncthreads();
  unsigned int incl = x;
  for (unsigned int v = 0; v < w; v++) incl += s_w[v];
  const unsigned int below = st[2], need = k - below, excl = incl - c;
  __syncthreads();  // every thread has read st[2]
  if (excl < need && need <= incl) {
    const unsigned long long p = first ? (unsigned long long)t : (prefix << 8) | t;
    st[0] = (unsigned int)p;
    st[1] = (unsigned int)(p >> 32);
    st[2] = below + excl;
    if (last) st[3] = c;
  }
  if (t == 0) st[4] = 0;
}`;
  return { source, name };
}

/** Loads the raw bits (raw[4]) and keys (key[4]: all ones past wend) of a warp's 128 elements at i0. */
const WARP_LOAD = `      K raw[4], key[4];
#pragma unroll
      for (int j = 0; j < 4; j++) {
        const bool valid = i0 + j * 32u + lane < wend;
        raw[j] = valid ? in[i0 + j * 32u + lane] : (K)0;
        key[j] = valid ? (K)(nc_tf(raw[j]) ^ (K)flip) : (K)~(K)0;
      }`;

/**
 * The compaction kernel of `mode`: (in, len, B, chunk, flip, k, state, counts, keys, cols, vals,
 * idxs), grid rows × B, 256 threads; each warp takes an eighth of its block's chunk, in column
 * order. Mode 0 stores each warp's number of keys below the k-th and equal to it in
 * counts[2 × warp]. Modes 1 and 2 write, each warp on its own (ballots, no block barrier in the
 * loop) from the ranks the counts before it give: 1 (topk) the selected keys (as flipped) and
 * their columns into the row's k slots of `keys` and `cols` (a block or warp with nothing to write
 * returns at once); 2 (partition) every element, its bits into `vals` and its int64 column into
 * `idxs` (either may be null), the smaller keys first, then the equal ones, then the larger ones,
 * each group in column order.
 */
export function selectCompactKernel(dt: DType, mode: 0 | 1 | 2): { source: string; name: string } {
  const name = `nc_select_compact${mode}_${tag(dt)}`;
  const source = `${head(dt, name)}
extern "C" __global__ void __launch_bounds__(256${mode === 2 ? ', 8' : ''}) ${name}(${ARGS}, unsigned int* __restrict__ counts,
    void* __restrict__ keys_, unsigned int* __restrict__ cols, void* __restrict__ vals_, long long* __restrict__ idxs) {
  using namespace ${name}_ns;
  constexpr int mode = ${mode};  // a kernel a mode: each has only its own registers
${ROW}
  const K kth = (K)prefix;
  const unsigned int lane = t & 31, w = t >> 5, gw = blockIdx.x * 8u + w;
  const unsigned long long sub = chunk / 8u, wbegin = min(end, begin + w * sub), wend = min(end, wbegin + sub);
  if (mode == 0) {
    unsigned int lt = 0, eq = 0;
    for (unsigned long long i0 = wbegin; i0 < wend; i0 += 128u) {
${WARP_LOAD}
#pragma unroll
      for (int j = 0; j < 4; j++) { lt += key[j] < kth; eq += key[j] == kth && i0 + j * 32u + lane < wend; }
    }
#pragma unroll
    for (int o = 16; o > 0; o >>= 1) { lt += __shfl_xor_sync(0xffffffffu, lt, o); eq += __shfl_xor_sync(0xffffffffu, eq, o); }
    if (lane == 0) { counts[2u * gw] = lt; counts[2u * gw + 1] = eq; }
    return;
  }
  const bool part = mode == 2;
  if (!part) {  // topk: nothing to write in this block, done (the test is the same for all its threads)
    const unsigned int* bc = counts + 16u * blockIdx.x;
    unsigned int any = 0;
    for (int v = 0; v < 16; v++) any |= bc[v];
    if (!any) return;
  }
  // This warp's first ranks: the counts of the row's warps before it (the blocks before this one
  // summed by the whole block, then this block's warps before this warp).
  __shared__ unsigned int s_a[8], s_b[8];
  unsigned int ltBase = 0, eqBase = 0;
  const unsigned int* rc = counts + 16u * (blockIdx.x - b);
  for (unsigned int v = t; v < 8u * b; v += 256u) { ltBase += rc[2u * v]; eqBase += rc[2u * v + 1]; }
#pragma unroll
  for (int o = 16; o > 0; o >>= 1) {
    ltBase += __shfl_xor_sync(0xffffffffu, ltBase, o);
    eqBase += __shfl_xor_sync(0xffffffffu, eqBase, o);
  }
  if (lane == 0) { s_a[w] = ltBase; s_b[w] = eqBase; }
  __syncthreads();
  ltBase = 0;
  eqBase = 0;
  for (int v = 0; v < 8; v++) { ltBase += s_a[v]; eqBase += s_b[v]; }
  const unsigned int* wc = counts + 16u * blockIdx.x;
  for (unsigned int v = 0; v < w; v++) { ltBase += wc[2u * v]; eqBase += wc[2u * v + 1]; }
  if (!part && wc[2u * w] == 0 && wc[2u * w + 1] == 0) return;
  const unsigned int below = st[2], take = k - below, eqAll = st[3];
  const bool largest = flip != 0;
  const unsigned int skip = largest ? eqAll - take : 0;  // equal keys (in column order) passed over
  K* const keys = reinterpret_cast<K*>(keys_) + (unsigned long long)row * k;
  unsigned int* const rcols = cols + (unsigned long long)row * k;
  K* const vals = reinterpret_cast<K*>(vals_) + (unsigned long long)row * len;
  long long* const ridx = idxs + (unsigned long long)row * len;
  const unsigned int lower = (1u << lane) - 1u;
  for (unsigned long long i0 = wbegin; i0 < wend; i0 += 128u) {
${WARP_LOAD}
    if (!part) {
      bool any = false;
#pragma unroll
      for (int j = 0; j < 4; j++) any |= key[j] <= kth && i0 + j * 32u + lane < wend;
      if (!__any_sync(0xffffffffu, any)) continue;
    }
#pragma unroll
    for (int j = 0; j < 4; j++) {  // 32 consecutive elements a step
      const unsigned int i = (unsigned int)(i0 + j * 32u + lane);
      const bool valid = i < wend;
      const bool lt = key[j] < kth, eq = key[j] == kth && valid;
      const unsigned int bl = __ballot_sync(0xffffffffu, lt), be = __ballot_sync(0xffffffffu, eq);
      const unsigned int rl = ltBase + __popc(bl & lower), re = eqBase + __popc(be & lower);
      ltBase += __popc(bl);
      eqBase += __popc(be);
      if (part) {
        if (!valid) continue;
        // Larger keys: the columns before this one that are neither smaller nor equal.
        const unsigned int at = lt ? rl : eq ? below + re : below + eqAll + (i - rl - re);
        if (vals_) vals[at] = raw[j];
        if (idxs) ridx[at] = i;
      } else if (lt) {
        const unsigned int at = largest ? below - 1u - rl : rl;
        keys[at] = key[j];
        rcols[at] = i;
      } else if (eq && re >= skip && re - skip < take) {
        const unsigned int s = re - skip;
        const unsigned int at = largest ? k - 1u - s : below + s;
        keys[at] = key[j];
        rcols[at] = i;
      }
    }
  }
}`;
  return { source, name };
}

/**
 * The gather kernel: (in, len, k, n, ranks, cols, values, indices), a grid-stride loop over the
 * n = rows × k results: the column of each rank (ranks: int64 slot numbers from the slots' sort)
 * and the input's value there.
 */
export function selectGatherKernel(dt: DType): { source: string; name: string } {
  const name = `nc_select_gather_${tag(dt)}`;
  const U = uintC(dt.bytes);
  const source = `
extern "C" __global__ void __launch_bounds__(256) ${name}(const ${U}* __restrict__ in, const unsigned int len,
    const unsigned int k, const unsigned long long n, const long long* __restrict__ ranks,
    const unsigned int* __restrict__ cols, ${U}* __restrict__ values, long long* __restrict__ indices) {
  for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x; i < n;
       i += (unsigned long long)gridDim.x * blockDim.x) {
    const unsigned long long row = i / k;
    const unsigned int c = cols[row * k + (unsigned long long)ranks[i]];
    values[i] = in[row * len + c];
    indices[i] = c;
  }
}`;
  return { source, name };
}

/** The selection kernels of `dt` (real dtypes and bool). */
export function selectKernelsFor(dt: DType): Array<{ source: string; name: string }> {
  return [selectHistKernel(dt), selectCompactKernel(dt, 0), selectCompactKernel(dt, 1), selectCompactKernel(dt, 2), selectGatherKernel(dt)];
}
