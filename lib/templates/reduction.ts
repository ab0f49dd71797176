/**
 * The reduction kernel family. A reduction maps each element to an accumulator value and combines
 * them with an associative, commutative operator; outputs are indexed by `o` (the kept dims, C
 * order), reduced elements by `r` (the reduced dims, C order). Three variants:
 * - rows: G blocks per output (G > 1: partials + a last-block-done counter, single pass), each
 *   thread striding over r; vector loads when the reduced run is contiguous and aligned.
 * - warp: one warp per output (short reductions, many outputs).
 * - cols: threads along the outputs (the reduced dims are strided, the kept innermost is
 *   contiguous), the reduction split over blockIdx.y with partials and per-column-tile counters.
 * Warp shuffles (`__shfl_down_sync`) and shared memory; no volatile warp-synchronous code.
 */

/** What a reduction computes (all strings are CUDA C). */
export interface ReduceSpec {
  /** Unique kernel name. */
  name: string;
  /** Accumulator C type. */
  acc: string;
  /** Expression of type acc: the neutral element. */
  neutral: string;
  /** Expression in `a`, `b` (acc): their combination. */
  reduce: string;
  /** Output storage C type. */
  out: string;
  /** Kernel parameters after `out` (arrays, scalars), C declarations. */
  params: string;
  /**
   * Expression of type acc for the element at offset `i` (element units; also `o`, `r`).
   * Offsets come from the layout passed at launch.
   */
  map: string;
  /**
   * Optional vectorized form (contiguous runs): array params named here are loaded as vectors and
   * `vecMap` maps the loaded values x0.. (compute types given) to acc.
   */
  vec?: { arrays: Array<{ name: string; storage: string; compute: string }>; map: string };
  /** Expression from `acc` (and `o`, params) to the value stored (NC_STORE to `out`). */
  post: string;
  /** Device code placed before the kernel. */
  preamble?: string;
}

export interface ReduceVariant {
  kind: 'rows' | 'warp' | 'cols';
  /** Collapsed kept / reduced ndim (kept may be 0 → treated as one dim of size 1). */
  nk: number;
  nr: number;
  /** 64-bit offsets. */
  wide: boolean;
  /** rows only: vector loads of E elements (reduced dims contiguous & aligned); 1 = scalar. */
  e: number;
}

/** Threads per block of the rows/warp variants (cols uses 32x8). */
export const REDUCE_BLOCK = 256;

/** Device helpers shared by every reduction and scan kernel (once per module). */
export const REDUCE_PREAMBLE = String.raw`
#ifndef NC_REDUCE_HELPERS
#define NC_REDUCE_HELPERS
// Any trivially copyable type moved as 32-bit words (accumulators are multiples of 4 bytes).
template <typename T> __device__ __forceinline__ T nc_shfl_down(T v, int d) {
  unsigned int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  #pragma unroll
  for (int j = 0; j < (int)((sizeof(T) + 3) / 4); j++) w[j] = __shfl_down_sync(0xffffffffu, w[j], d);
  memcpy(&v, w, sizeof(T));
  return v;
}
template <typename T> __device__ __forceinline__ T nc_shfl_up(T v, int d) {
  unsigned int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  #pragma unroll
  for (int j = 0; j < (int)((sizeof(T) + 3) / 4); j++) w[j] = __shfl_up_sync(0xffffffffu, w[j], d);
  memcpy(&v, w, sizeof(T));
  return v;
}
template <typename T> __device__ __forceinline__ T nc_shfl(T v, int src) {
  unsigned int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  #pragma unroll
  for (int j = 0; j < (int)((sizeof(T) + 3) / 4); j++) w[j] = __shfl_sync(0xffffffffu, w[j], src);
  memcpy(&v, w, sizeof(T));
  return v;
}
// Loads/stores that bypass L1 (data written by other blocks of the same launch).
template <typename T> __device__ __forceinline__ T nc_ld_cg(const T* p) {
  unsigned int w[(sizeof(T) + 3) / 4];
  const volatile unsigned int* q = reinterpret_cast<const volatile unsigned int*>(p);
  #pragma unroll
  for (int j = 0; j < (int)(sizeof(T) / 4); j++) w[j] = q[j];
  T v;
  memcpy(&v, w, sizeof(T));
  return v;
}
template <typename T> __device__ __forceinline__ void nc_st_cg(T* p, T v) {
  unsigned int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  volatile unsigned int* q = reinterpret_cast<volatile unsigned int*>(p);
  #pragma unroll
  for (int j = 0; j < (int)(sizeof(T) / 4); j++) q[j] = w[j];
}
template <typename T> __device__ __forceinline__ T nc_sq(T x) { return x * x; }
template <typename R> __device__ __forceinline__ R nc_sq(nc_complex<R> x) { return x.re * x.re + x.im * x.im; }
__device__ __forceinline__ float nc_inf_f() { return __int_as_float(0x7f800000); }
__device__ __forceinline__ double nc_inf_d() { return __longlong_as_double(0x7ff0000000000000LL); }
#endif
`;

function offsets(prefix: 'k' | 'r', n: number, idx: string, v: string, into: string): string {
  // Offset of coordinate index `v` over dims prefix (C order), accumulated into `into`.
  if (n === 1) return `${into} += (${idx})(${v}) * L.${prefix}stride[0];`;
  return `{ ${idx} rem = (${idx})(${v});
    #pragma unroll
    for (int d = ${n - 1}; d >= 0; d--) { const ${idx} c = rem % L.${prefix}shape[d]; rem /= L.${prefix}shape[d]; ${into} += c * L.${prefix}stride[d]; } }`;
}

/** The kernel name of one spec+variant. */
export function reduceKernelName(spec: ReduceSpec, v: ReduceVariant): string {
  return `${spec.name}_${v.kind}${v.e}_${v.nk}${v.nr}${v.wide ? 'w' : ''}`;
}

function header(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  return `
namespace ${name}_ns {
typedef ${spec.acc} acc_t;
__device__ __forceinline__ acc_t red(acc_t a, acc_t b) { return (${spec.reduce}); }
struct layout { ${idx} kshape[${v.nk}]; ${idx} kstride[${v.nk}]; ${idx} rshape[${v.nr}]; ${idx} rstride[${v.nr}]; };
// Block-wide combination; the result is valid in thread 0.
template <int B> __device__ __forceinline__ acc_t block_reduce(acc_t x) {
  __shared__ __align__(16) unsigned char raw[(B / 32) * sizeof(acc_t)];
  acc_t* s = reinterpret_cast<acc_t*>(raw);
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) x = red(x, nc_shfl_down(x, d));
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  if ((t & 31) == 0) s[t >> 5] = x;
  __syncthreads();
  if (t < 32) {
    x = t < B / 32 ? s[t] : (${spec.neutral});
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) x = red(x, nc_shfl_down(x, d));
  }
  return x;
}
}
extern "C" __global__ void __launch_bounds__(${REDUCE_BLOCK}) ${name}(${spec.out} *__restrict__ out, ${spec.params}${spec.params ? ', ' : ''}const ${name}_ns::layout L, const ${idx} m, const ${idx} k, const unsigned int G, ${name}_ns::acc_t *__restrict__ partials, unsigned int *__restrict__ counters)`;
}

function rows(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  const B = REDUCE_BLOCK;
  const E = v.e;
  let loop: string;
  if (E > 1 && spec.vec) {
    const loads = spec.vec.arrays.map((a, j) =>
      `const nc_vec<${a.storage}, ${E}> v${j} = *reinterpret_cast<const nc_vec<${a.storage}, ${E}>*>(${a.name} + obase + b);`);
    const xs = spec.vec.arrays.map((a, j) => `const ${a.compute} x${j} = NC_TO(${a.compute}, nc_load(v${j}.v[q]));`);
    const loads2 = spec.vec.arrays.map((a, j) =>
      `const nc_vec<${a.storage}, ${E}> u${j} = *reinterpret_cast<const nc_vec<${a.storage}, ${E}>*>(${a.name} + obase + b + step);`);
    const xs2 = spec.vec.arrays.map((a, j) => `const ${a.compute} x${j} = NC_TO(${a.compute}, nc_load(u${j}.v[q]));`);
    const xt = spec.vec.arrays.map((a, j) => `const ${a.compute} x${j} = NC_TO(${a.compute}, nc_load(${a.name}[obase + r]));`);
    loop = `
  ${idx} b = ((${idx})g * ${B} + threadIdx.x) * ${E};
  const ${idx} step = (${idx})G * ${B} * ${E};
  for (; b + step + ${E} <= k; b += 2 * step) {
    ${loads.join('\n    ')}
    ${loads2.join('\n    ')}
    #pragma unroll
    for (int q = 0; q < ${E}; q++) { const ${idx} r = b + q; (void)r; ${xs.join(' ')} acc = red(acc, (${spec.vec.map})); }
    #pragma unroll
    for (int q = 0; q < ${E}; q++) { const ${idx} r = b + step + q; (void)r; ${xs2.join(' ')} acc = red(acc, (${spec.vec.map})); }
  }
  for (; b + ${E} <= k; b += step) {
    ${loads.join('\n    ')}
    #pragma unroll
    for (int q = 0; q < ${E}; q++) { const ${idx} r = b + q; (void)r; ${xs.join(' ')} acc = red(acc, (${spec.vec.map})); }
  }
  if (b < k) for (${idx} r = b; r < k; r++) { ${xt.join(' ')} acc = red(acc, (${spec.vec.map})); }`;
  } else {
    const el = (r: string) => `[&]() { const ${idx} r = ${r}; ${idx} i = obase; ${offsets('r', v.nr, idx, 'r', 'i')} (void)r; return (acc_t)(${spec.map}); }()`;
    loop = `
  const ${idx} step = (${idx})G * ${B};
  ${idx} r0 = (${idx})g * ${B} + threadIdx.x;
  for (; r0 + 3 * step < k; r0 += 4 * step) {
    const acc_t a0 = ${el('r0')}, a1 = ${el('r0 + step')}, a2 = ${el('r0 + 2 * step')}, a3 = ${el('r0 + 3 * step')};
    acc = red(acc, red(red(a0, a1), red(a2, a3)));
  }
  for (; r0 < k; r0 += step) acc = red(acc, ${el('r0')});`;
  }
  return `${header(spec, v, name)} {
  using namespace ${name}_ns;
  const ${idx} o = (${idx})(blockIdx.x / G);
  const unsigned int g = blockIdx.x % G;
  ${idx} obase = 0;
  ${offsets('k', v.nk, idx, 'o', 'obase')}
  acc_t acc = (${spec.neutral});
  ${loop}
  acc = block_reduce<${B}>(acc);
  if (G == 1) {
    if (threadIdx.x == 0) out[o] = NC_STORE(${spec.out}, (${spec.post}));
    return;
  }
  __shared__ bool last;
  if (threadIdx.x == 0) {
    nc_st_cg(&partials[(long long)o * G + g], acc);
    __threadfence();
    last = atomicAdd(&counters[o], 1u) == G - 1;
  }
  __syncthreads();
  if (!last) return;
  __threadfence();
  acc = (${spec.neutral});
  for (unsigned int j = threadIdx.x; j < G; j += ${B}) acc = red(acc, nc_ld_cg(&partials[(long long)o * G + j]));
  acc = block_reduce<${B}>(acc);
  if (threadIdx.x == 0) {
    out[o] = NC_STORE(${spec.out}, (${spec.post}));
    counters[o] = 0;
  }
}`;
}

function warp(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  return `${header(spec, v, name)} {
  using namespace ${name}_ns;
  const ${idx} o = (${idx})blockIdx.x * ${REDUCE_BLOCK / 32} + (threadIdx.x >> 5);
  if (o >= m) return;
  const int lane = threadIdx.x & 31;
  ${idx} obase = 0;
  ${offsets('k', v.nk, idx, 'o', 'obase')}
  acc_t acc = (${spec.neutral});
  for (${idx} r = lane; r < k; r += 32) { ${idx} i = obase; ${offsets('r', v.nr, idx, 'r', 'i')} acc = red(acc, (acc_t)(${spec.map})); }
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) acc = red(acc, nc_shfl_down(acc, d));
  if (lane == 0) out[o] = NC_STORE(${spec.out}, (${spec.post}));
}`;
}

function cols(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  const el = (r: string) => `[&]() { const ${idx} r = ${r}; ${idx} i = obase; ${offsets('r', v.nr, idx, 'r', 'i')} (void)r; return (acc_t)(${spec.map}); }()`;
  return `${header(spec, v, name)} {
  using namespace ${name}_ns;
  __shared__ __align__(16) unsigned char raw[8 * 33 * sizeof(acc_t)];
  acc_t* s = reinterpret_cast<acc_t*>(raw);
  __shared__ bool last;
  const int tx = threadIdx.x, ty = threadIdx.y;
  const ${idx} o = (${idx})blockIdx.x * 32 + tx;
  const bool live = o < m;
  ${idx} obase = 0;
  if (live) { ${offsets('k', v.nk, idx, 'o', 'obase')} }
  acc_t acc = (${spec.neutral});
  if (live) {
    const ${idx} step = (${idx})gridDim.y * 8;
    ${idx} r0 = (${idx})blockIdx.y * 8 + ty;
    for (; r0 + 3 * step < k; r0 += 4 * step) {
      const acc_t a0 = ${el('r0')}, a1 = ${el('r0 + step')}, a2 = ${el('r0 + 2 * step')}, a3 = ${el('r0 + 3 * step')};
      acc = red(acc, red(red(a0, a1), red(a2, a3)));
    }
    for (; r0 < k; r0 += step) acc = red(acc, ${el('r0')});
  }
  s[ty * 33 + tx] = acc;
  __syncthreads();
  if (ty == 0) {
    #pragma unroll
    for (int j = 1; j < 8; j++) acc = red(acc, s[j * 33 + tx]);
  }
  if (gridDim.y == 1) {
    if (ty == 0 && live) out[o] = NC_STORE(${spec.out}, (${spec.post}));
    return;
  }
  if (ty == 0 && live) nc_st_cg(&partials[(long long)blockIdx.y * m + o], acc);
  __threadfence();
  __syncthreads();
  if (tx == 0 && ty == 0) last = atomicAdd(&counters[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!last) return;
  __threadfence();
  if (ty == 0 && live) {
    acc = (${spec.neutral});
    for (unsigned int j = 0; j < gridDim.y; j++) acc = red(acc, nc_ld_cg(&partials[(long long)j * m + o]));
    out[o] = NC_STORE(${spec.out}, (${spec.post}));
  }
  if (tx == 0 && ty == 0) counters[blockIdx.x] = 0;
}`;
}

/** Source of one reduction kernel (no preamble). */
export function reduceKernel(spec: ReduceSpec, v: ReduceVariant): { source: string; name: string } {
  const name = reduceKernelName(spec, v);
  const source = v.kind === 'rows' ? rows(spec, v, name) : v.kind === 'warp' ? warp(spec, v, name) : cols(spec, v, name);
  return { source: `${spec.preamble ?? ''}\n${source}`, name };
}
