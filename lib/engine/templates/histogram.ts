/**
 * bincount's and histogram's kernel (CUDA C source; needs PREAMBLE before it) and the reduction
 * that finds a float array's range. One template serves both: an element's bin is its integer
 * value (bincount) or the bin of sorted edges it falls in (histogram: e[d] <= v < e[d + 1], the
 * last bin closed on the right), and the element adds 1 (an int64 count) or its weight (a float64
 * sum; complex weights: real and imaginary parts, complex128's layout) to that bin.
 *
 * Two ways of adding (the kernel's `privatized` parameter, chosen by the host from the bins'
 * size): each block's own bins in dynamic shared memory (uint32 counts or float64 sums), merged
 * into the output with one atomic a nonzero bin at the end; or atomics straight on the output in
 * global memory (many bins). Grid-stride, four elements a thread a step with their loads issued
 * before any bin is found.
 */
import { DType } from '../../base/dtype';
import { ReduceSpec } from './reduction';

/** Threads of a block. */
export const HIST_BLOCK = 256;
/** Dynamic shared memory a block's private bins may take (no opt-in needed up to 48 KiB). */
export const HIST_SHARED_BYTES = 48 * 1024;

/** What one histogram kernel is specialized on. */
export interface HistKernelSpec {
  /** The input's dtype (integers and bool for bincount). */
  x: DType;
  /** The edges' dtype (histogram); null: bincount (the bin is the value). */
  edges: DType | null;
  /** The dtype elements and edges are compared in (NumPy's promotion of the two); with `edges`. */
  cmp: DType | null;
  /** The weights' dtype; null: counts. */
  weights: DType | null;
}

/** The kernel's name (every dtype it is specialized on). */
export function histKernelName(k: HistKernelSpec): string {
  const w = k.weights ? `_w${k.weights.name}` : '';
  return k.edges ? `nc_histogram_${k.x.name}_${k.edges.name}_${k.cmp!.name}${w}` : `nc_bincount_${k.x.name}${w}`;
}

/** Accumulators a bin has: 2 for complex weights (real, imaginary), else 1. */
export const binParts = (weights: DType | null): number => (weights?.kind === 'c' ? 2 : 1);

/** Bytes of a bin's private accumulators in shared memory (uint32 counts, float64 sums). */
export const privateBinBytes = (weights: DType | null): number => (weights ? 8 * binParts(weights) : 4);

/**
 * `bin_of`: the bin of one stored element, or ~0 when it has none. bincount: the value (negative
 * values wrap past any bin count). histogram: v outside [e[0], e[bins]] or NaN has none; with
 * `uniform` (equal-width bins from lo, bins / (hi - lo) of them a unit: `scale`) the guess
 * (v - lo) × scale and its neighbours are checked against the edges, which decide as in a search;
 * otherwise (or a guess further off: ranges near the double's limits) a binary search for the
 * first edge above v. Every bin returned is below `bins` (edges with NaNs in them included).
 */
function binOf(k: HistKernelSpec): string {
  const S = k.x.storageC;
  if (!k.edges) {
    return `
__device__ __forceinline__ unsigned long long bin_of(${S} s, const unsigned char* __restrict__, unsigned long long bins, double, double, bool) {
  const unsigned long long d = (unsigned long long)(long long)nc_load(s);
  return d < bins ? d : ~0ull;
}`;
  }
  const E = k.edges.storageC;
  const T = k.cmp!.computeC;
  return `
__device__ __forceinline__ ${T} edge(const ${E}* __restrict__ e, unsigned long long j) { return (${T})nc_load(e[j]); }
// Bin d holds v: e[d] <= v < e[d + 1], or the last bin and v <= e[bins] (checked before).
__device__ __forceinline__ bool holds(const ${E}* __restrict__ e, unsigned long long d, unsigned long long bins, ${T} v) {
  return v >= edge(e, d) && (d + 1 == bins || v < edge(e, d + 1));
}
__device__ __forceinline__ unsigned long long bin_of(${S} s, const ${E}* __restrict__ e, unsigned long long bins, double lo,
    double scale, bool uniform) {
  const ${T} v = (${T})nc_load(s);
  if (!(v >= edge(e, 0) && v <= edge(e, bins))) return ~0ull;  // outside, or NaN
  if (uniform) {
    const double f = ((double)v - lo) * scale;
    unsigned long long d = f > 0.0 ? (f < (double)bins ? (unsigned long long)f : bins - 1) : 0ull;
    if (holds(e, d, bins, v)) return d;
    if (d > 0 && holds(e, d - 1, bins, v)) return d - 1;
    if (d + 1 < bins && holds(e, d + 1, bins, v)) return d + 1;
  }
  unsigned long long a = 1, b = bins + 1;  // the first edge above v is in [a, b] (e[0] <= v)
  while (a < b) {
    const unsigned long long m = a + ((b - a) >> 1);
    if (v < edge(e, m)) b = m;
    else a = m + 1;
  }
  return a - 1 < bins ? a - 1 : bins - 1;  // v == e[bins]: the last bin
}`;
}

/**
 * The histogram kernel of `k`: adds every element of `x` (n of them, contiguous) to its bin of
 * `out` (bins × binParts accumulators: unsigned long long counts, or double sums of the weights
 * `w`), zeroed before. `e`: the bins + 1 edges (histogram), `lo`, `scale`, `uniform`: see binOf.
 * `privatized`: the block's bins in dynamic shared memory (bins × privateBinBytes bytes), merged
 * with one atomic a nonzero bin; the host keeps a block's elements below 2^32 for uint32 counts.
 */
export function histKernel(k: HistKernelSpec): { source: string; name: string } {
  const name = histKernelName(k);
  const S = k.x.storageC;
  const E = k.edges?.storageC ?? 'unsigned char';
  const W = k.weights?.storageC ?? 'unsigned char';
  const A = k.weights ? 'double' : 'unsigned long long';
  const L = k.weights ? 'double' : 'unsigned int';
  const parts = binParts(k.weights);
  // One element's contribution to bin d of h (the block's bins or the output).
  let add: (h: string, one: string) => string;
  if (!k.weights) add = (h, one) => `atomicAdd(${h} + d, ${one});`;
  else if (parts === 1) add = (h) => `atomicAdd(${h} + d, (double)nc_load(wv[j]));`;
  else {
    add = (h) => `{
        const auto c = nc_load(wv[j]);
        atomicAdd(${h} + 2 * d, (double)c.re);
        atomicAdd(${h} + 2 * d + 1, (double)c.im);
      }`;
  }
  const source = `
namespace ${name}_ns {${binOf(k)}
}
extern "C" __global__ void __launch_bounds__(${HIST_BLOCK}) ${name}(const ${S}* __restrict__ x, const ${W}* __restrict__ w,
    const ${E}* __restrict__ e, ${A}* __restrict__ out, const unsigned long long n, const unsigned long long bins,
    const double lo, const double scale, const int uniform, const int privatized) {
  using namespace ${name}_ns;
  extern __shared__ double s_bins[];  // privatized: the block's bins (double-aligned)
  ${L}* h = reinterpret_cast<${L}*>(s_bins);
  const unsigned long long slots = bins * ${parts}ull;
  if (privatized) {
    for (unsigned long long b = threadIdx.x; b < slots; b += ${HIST_BLOCK}) h[b] = 0;
    __syncthreads();
  }
  const unsigned long long stride = (unsigned long long)gridDim.x * ${HIST_BLOCK};
  for (unsigned long long i0 = (unsigned long long)blockIdx.x * ${HIST_BLOCK} + threadIdx.x; i0 < n; i0 += 4 * stride) {
    ${S} v[4];${k.weights ? `\n    ${W} wv[4];` : ''}
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      const unsigned long long i = i0 + j * stride;
      if (i < n) {
        v[j] = x[i];${k.weights ? '\n        wv[j] = w[i];' : ''}
      }
    }
    #pragma unroll
    for (int j = 0; j < 4; j++) {
      if (i0 + j * stride >= n) break;
      const unsigned long long d = bin_of(v[j], e, bins, lo, scale, uniform != 0);
      if (d == ~0ull) continue;
      if (privatized) ${add('h', '1u')}
      else ${add('out', '1ull')}
    }
  }
  if (privatized) {
    __syncthreads();
    for (unsigned long long b = threadIdx.x; b < slots; b += ${HIST_BLOCK}) {
      const ${L} c = h[b];
      if (c != 0) atomicAdd(out + b, (${A})c);
    }
  }
}`;
  return { source, name };
}

/**
 * histogram's autodetected range: the min and max of a float array as one reduction
 * (engine/reduce.ts) into two doubles, NaN when any element is NaN (NumPy's min and max
 * propagate it; histogram then refuses the range).
 */
export function histRangeSpec(dt: DType): ReduceSpec {
  const acc = 'nc_hrange';
  const both = (x: string): string => `${acc}{(double)${x}, (double)${x}}`;
  return {
    name: `nc_hist_range_${dt.name}`, acc, neutral: `${acc}{__longlong_as_double(0x7ff0000000000000ll), __longlong_as_double(0xfff0000000000000ll)}`,
    reduce: `${acc}{nc_hlo(a.lo, b.lo), nc_hhi(a.hi, b.hi)}`, out: acc,
    params: `const ${dt.storageC} *__restrict__ in0`, map: both('nc_load(in0[i])'),
    vec: { arrays: [{ name: 'in0', storage: dt.storageC, compute: dt.computeC }], map: both('nc_x0') },
    post: 'nc_acc',
    preamble: `#ifndef ${acc}_DEF
#define ${acc}_DEF
struct ${acc} { double lo, hi; };
// NaN wins (a + b is NaN when either is).
__device__ __forceinline__ double nc_hlo(double a, double b) { return a != a || b != b ? a + b : (a < b ? a : b); }
__device__ __forceinline__ double nc_hhi(double a, double b) { return a != a || b != b ? a + b : (a > b ? a : b); }
#endif`,
  };
}
