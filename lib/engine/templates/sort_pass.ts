/**
 * The scatter pass of the radix sort (templates/sort.ts; CUDA C source, needs PREAMBLE before it),
 * one launch per 8-bit digit: tiles of passBlock × sortItems keys taken in ticket order. Keys past
 * n are padded with all ones; each warp counts its keys' digits (early counts, see EARLY), the
 * digit threads (the first 256, one per digit) scan the warps' counts and publish the tile's
 * counts, each warp ranks its contiguous chunk to tile positions (the lanes sharing a digit from a
 * shared atomicOr, see RANK; stable: lanes in order, items in order), and each digit thread looks
 * back over its predecessors' published counts (decoupled look-back, status + epoch + value in
 * one 64-bit word) for the digit's global position; keys (then payloads) are exchanged through
 * shared memory so the global writes are coalesced runs.
 */
import { DType } from '../../base/dtype';
import { envFlag, envNumber } from '../../base/env';
import { tag, transforms, uintC } from './sort_keys';

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
