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
import { envNumber } from '../../base/env';

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
   * Expression of type acc for the element at offset `i` (element units; built-ins also use the
   * output index `nc_o` and the reduced index `nc_r`).
   * Offsets come from the layout passed at launch.
   */
  map: string;
  /**
   * Optional vectorized form (contiguous runs): array params named here are loaded as vectors and
   * `vec.map` maps the loaded values nc_x0.. (compute types given) to acc.
   */
  vec?: { arrays: Array<{ name: string; storage: string; compute: string }>; map: string };
  /** Expression from `nc_acc` (and `nc_o`, `nc_k` = reduced count, params): the value stored. */
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
  /**
   * Vector loads of E elements; 1 = scalar. rows: the reduced dims contiguous and aligned; cols:
   * each thread's E adjacent outputs contiguous and aligned in every reduced element.
   */
  e: number;
}

/** Threads per block of the rows/warp variants (cols uses 32x8). */
export const REDUCE_BLOCK = 256;

/**
 * Loads in flight per thread in the cols variant: 8 (default) or 4 (NODECUDA_RED_COLS_UNROLL).
 * H200, sum over axis 0 of 16384² float32: 4 loads 3.79 TB/s, 8 loads 3.91 (4.00 with 2 waves).
 */
const COLS_UNROLL = envNumber('NODECUDA_RED_COLS_UNROLL', 8, { min: 4, max: 8, oneOf: [4, 8] });

/** Vector loads in flight per thread in the rows variant (tuning: NODECUDA_RED_UNROLL). */
const REDUCE_UNROLL = envNumber('NODECUDA_RED_UNROLL', 2, { min: 1, max: 8 });

/** Device helpers shared by every reduction and scan kernel (once per module). */
export const REDUCE_PREAMBLE = String.raw`
#ifndef NC_REDUCE_HELPERS
#define NC_REDUCE_HELPERS
// Any trivially copyable type moved as 32-bit words (accumulators are multiples of 4 bytes), each
// word by the shuffle f.
template <typename T, typename F> __device__ __forceinline__ T nc_shfl_words(T v, F f) {
  unsigned int w[(sizeof(T) + 3) / 4];
  memcpy(w, &v, sizeof(T));
  #pragma unroll
  for (int j = 0; j < (int)((sizeof(T) + 3) / 4); j++) w[j] = f(w[j]);
  memcpy(&v, w, sizeof(T));
  return v;
}
struct nc_down_f { int d; __device__ unsigned int operator()(unsigned int x) const { return __shfl_down_sync(0xffffffffu, x, d); } };
struct nc_up_f { int d; __device__ unsigned int operator()(unsigned int x) const { return __shfl_up_sync(0xffffffffu, x, d); } };
struct nc_idx_f { int s; __device__ unsigned int operator()(unsigned int x) const { return __shfl_sync(0xffffffffu, x, s); } };
template <typename T> __device__ __forceinline__ T nc_shfl_down(T v, int d) { return nc_shfl_words(v, nc_down_f{d}); }
template <typename T> __device__ __forceinline__ T nc_shfl_up(T v, int d) { return nc_shfl_words(v, nc_up_f{d}); }
template <typename T> __device__ __forceinline__ T nc_shfl(T v, int src) { return nc_shfl_words(v, nc_idx_f{src}); }
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
  if (n === 1) return `${into} += (${idx})(${v}) * nc_L.${prefix}stride[0];`;
  return `{ ${idx} nc_rem = (${idx})(${v});
    #pragma unroll
    for (int nc_d = ${n - 1}; nc_d >= 0; nc_d--) { const ${idx} nc_c = nc_rem % nc_L.${prefix}shape[nc_d]; nc_rem /= nc_L.${prefix}shape[nc_d]; ${into} += nc_c * nc_L.${prefix}stride[nc_d]; } }`;
}

/** The kernel name of one spec+variant. */
export function reduceKernelName(spec: ReduceSpec, v: ReduceVariant): string {
  return `${spec.name}_${v.kind}${v.e}_${v.nk}${v.nr}${v.wide ? 'w' : ''}`;
}

// Every name the template declares starts with nc_, so user expressions see only their own
// arguments, `i` (map) and the documented nc_ names (nc_o, nc_r, nc_k, nc_acc: built-ins only).
function header(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  return `
namespace ${name}_ns {
typedef ${spec.acc} nc_acc_t;
__device__ __forceinline__ nc_acc_t nc_red(nc_acc_t a, nc_acc_t b) { return (${spec.reduce}); }
struct nc_layout { ${idx} kshape[${v.nk}]; ${idx} kstride[${v.nk}]; ${idx} rshape[${v.nr}]; ${idx} rstride[${v.nr}]; };
// Block-wide combination; the result is valid in thread 0.
template <int B> __device__ __forceinline__ nc_acc_t nc_block_reduce(nc_acc_t x) {
  __shared__ __align__(16) unsigned char raw[(B / 32) * sizeof(nc_acc_t)];
  nc_acc_t* s = reinterpret_cast<nc_acc_t*>(raw);
  #pragma unroll
  for (int d = 16; d > 0; d >>= 1) x = nc_red(x, nc_shfl_down(x, d));
  const int t = threadIdx.x + threadIdx.y * blockDim.x;
  if ((t & 31) == 0) s[t >> 5] = x;
  __syncthreads();
  if (t < 32) {
    x = t < B / 32 ? s[t] : (${spec.neutral});
    #pragma unroll
    for (int d = 16; d > 0; d >>= 1) x = nc_red(x, nc_shfl_down(x, d));
  }
  return x;
}
}
extern "C" __global__ void __launch_bounds__(${REDUCE_BLOCK}) ${name}(${spec.out} *__restrict__ nc_out, ${spec.params}${spec.params ? ', ' : ''}const ${name}_ns::nc_layout nc_L, const ${idx} nc_m, const ${idx} nc_k, const unsigned int nc_G, ${name}_ns::nc_acc_t *__restrict__ nc_partials, unsigned int *__restrict__ nc_counters)`;
}

/** The value of reduced element `r` (an expression) of output base nc_obase. */
function element(spec: ReduceSpec, v: ReduceVariant, idx: string, r: string): string {
  return `[&]() { const ${idx} nc_r = ${r}; ${idx} i = nc_obase; ${offsets('r', v.nr, idx, 'nc_r', 'i')} (void)nc_r; return (nc_acc_t)(${spec.map}); }()`;
}

/** The strided loop over reduced elements start, start+step, ... < nc_k (4 loads in flight). */
function stridedLoop(spec: ReduceSpec, v: ReduceVariant, idx: string, start: string, step: string): string {
  const el = (r: string) => element(spec, v, idx, r);
  // U loads in flight per thread (U = 4, or STRIDED_UNROLL), combined pairwise.
  const u = v.kind === 'cols' ? COLS_UNROLL : 4;
  const loads = Array.from({ length: u }, (_, j) => `nc_a${j} = ${el(j ? `nc_r0 + ${j} * nc_step` : 'nc_r0')}`).join(', ');
  let terms = Array.from({ length: u }, (_, j) => `nc_a${j}`);
  while (terms.length > 1) terms = terms.flatMap((t, j) => (j % 2 ? [] : [`nc_red(${t}, ${terms[j + 1]})`]));
  return `const ${idx} nc_step = ${step};
  ${idx} nc_r0 = ${start};
  for (; nc_r0 + ${u - 1} * nc_step < nc_k; nc_r0 += ${u} * nc_step) {
    const nc_acc_t ${loads};
    nc_acc = nc_red(nc_acc, ${terms[0]});
  }
  for (; nc_r0 < nc_k; nc_r0 += nc_step) nc_acc = nc_red(nc_acc, ${el('nc_r0')});`;
}

function store(spec: ReduceSpec): string {
  return `nc_out[nc_o] = NC_STORE(${spec.out}, (${spec.post}));`;
}

/**
 * Load `w` of a vector loop (rows and cols): each vectorized array's E elements at `at(array)` as
 * nc_v<j>_<w>, and the declarations of the compute values nc_x<j> of element nc_q of them.
 */
function vectorLoad(vec: NonNullable<ReduceSpec['vec']>, E: number, w: number, at: (a: string) => string): { loads: string[]; xs: string } {
  const loads = vec.arrays.map((a, j) => `const nc_vec<${a.storage}, ${E}> nc_v${j}_${w} = *reinterpret_cast<const nc_vec<${a.storage}, ${E}>*>(${at(a.name)});`);
  const xs = vec.arrays.map((a, j) => `const ${a.compute} nc_x${j} = NC_TO(${a.compute}, nc_load(nc_v${j}_${w}.v[nc_q]));`).join(' ');
  return { loads, xs };
}

function rows(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  const B = REDUCE_BLOCK;
  const E = v.e;
  let loop: string;
  if (E > 1 && spec.vec) {
    const vec = spec.vec;
    // U vector loads in flight per thread, then the U*E values are combined in order.
    const body = (u: number) => {
      const loads: string[] = [];
      const uses: string[] = [];
      for (let w = 0; w < u; w++) {
        const l = vectorLoad(vec, E, w, (a) => `${a} + nc_obase + nc_b + ${w} * nc_step`);
        loads.push(...l.loads);
        uses.push(`#pragma unroll
    for (int nc_q = 0; nc_q < ${E}; nc_q++) { const ${idx} nc_r = nc_b + ${w} * nc_step + nc_q; (void)nc_r; ${l.xs} nc_acc = nc_red(nc_acc, (${vec.map})); }`);
      }
      return `${loads.join('\n    ')}\n    ${uses.join('\n    ')}`;
    };
    const xt = vec.arrays.map((a, j) => `const ${a.compute} nc_x${j} = NC_TO(${a.compute}, nc_load(${a.name}[nc_obase + nc_r]));`);
    const U = REDUCE_UNROLL;
    loop = `
  ${idx} nc_b = ((${idx})nc_g * ${B} + threadIdx.x) * ${E};
  const ${idx} nc_step = (${idx})nc_G * ${B} * ${E};${U > 1 ? `
  for (; nc_b + ${U - 1} * nc_step + ${E} <= nc_k; nc_b += ${U} * nc_step) {
    ${body(U)}
  }` : ''}
  for (; nc_b + ${E} <= nc_k; nc_b += nc_step) {
    ${body(1)}
  }
  if (nc_b < nc_k) for (${idx} nc_r = nc_b; nc_r < nc_k; nc_r++) { ${xt.join(' ')} nc_acc = nc_red(nc_acc, (${spec.vec.map})); }`;
  } else {
    loop = stridedLoop(spec, v, idx, `(${idx})nc_g * ${B} + threadIdx.x`, `(${idx})nc_G * ${B}`);
  }
  return `${header(spec, v, name)} {
  using namespace ${name}_ns;
  const ${idx} nc_o = (${idx})(blockIdx.x / nc_G);
  const unsigned int nc_g = blockIdx.x % nc_G;
  ${idx} nc_obase = 0;
  ${offsets('k', v.nk, idx, 'nc_o', 'nc_obase')}
  nc_acc_t nc_acc = (${spec.neutral});
  ${loop}
  nc_acc = nc_block_reduce<${B}>(nc_acc);
  if (nc_G == 1) {
    if (threadIdx.x == 0) ${store(spec)}
    return;
  }
  __shared__ bool nc_last;
  if (threadIdx.x == 0) {
    nc_st_cg(&nc_partials[(long long)nc_o * nc_G + nc_g], nc_acc);
    __threadfence();
    nc_last = atomicAdd(&nc_counters[nc_o], 1u) == nc_G - 1;
  }
  __syncthreads();
  if (!nc_last) return;
  __threadfence();
  nc_acc = (${spec.neutral});
  for (unsigned int nc_j = threadIdx.x; nc_j < nc_G; nc_j += ${B}) nc_acc = nc_red(nc_acc, nc_ld_cg(&nc_partials[(long long)nc_o * nc_G + nc_j]));
  nc_acc = nc_block_reduce<${B}>(nc_acc);
  if (threadIdx.x == 0) {
    ${store(spec)}
    nc_counters[nc_o] = 0;
  }
}`;
}

function warp(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  return `${header(spec, v, name)} {
  using namespace ${name}_ns;
  const ${idx} nc_o = (${idx})blockIdx.x * ${REDUCE_BLOCK / 32} + (threadIdx.x >> 5);
  if (nc_o >= nc_m) return;
  const int nc_lane = threadIdx.x & 31;
  ${idx} nc_obase = 0;
  ${offsets('k', v.nk, idx, 'nc_o', 'nc_obase')}
  nc_acc_t nc_acc = (${spec.neutral});
  for (${idx} nc_ri = nc_lane; nc_ri < nc_k; nc_ri += 32) nc_acc = nc_red(nc_acc, ${element(spec, v, idx, 'nc_ri')});
  #pragma unroll
  for (int nc_d = 16; nc_d > 0; nc_d >>= 1) nc_acc = nc_red(nc_acc, nc_shfl_down(nc_acc, nc_d));
  if (nc_lane == 0) ${store(spec)}
}`;
}

function cols(spec: ReduceSpec, v: ReduceVariant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  const E = v.e;
  // E > 1 (spec.vec): each thread owns E adjacent outputs (contiguous, 16-byte aligned columns,
  // none straddling a kept dim: the host checks) and loads them as one vector per reduced element.
  let loop: string;
  if (E > 1 && spec.vec) {
    const vec = spec.vec;
    const U = COLS_UNROLL;
    const rowOff = (r: string) => v.nr === 1 ? `(${idx})(${r}) * nc_L.rstride[0]`
      : `[&]() { ${idx} nc_i = 0; ${offsets('r', v.nr, idx, r, 'nc_i')} return nc_i; }()`;
    const body = (u: number) => {
      const loads: string[] = [];
      const uses: string[] = [];
      for (let w = 0; w < u; w++) {
        const r = w ? `nc_r0 + ${w} * nc_step` : 'nc_r0';
        const l = vectorLoad(vec, E, w, (a) => `${a} + nc_off${w}`);
        loads.push(`const ${idx} nc_off${w} = nc_obase + ${rowOff(r)};`, ...l.loads);
        uses.push(`#pragma unroll
      for (int nc_q = 0; nc_q < ${E}; nc_q++) { const ${idx} nc_r = ${r}; const ${idx} nc_o = nc_o0 + nc_q; (void)nc_r; (void)nc_o; ${l.xs} nc_acc[nc_q] = nc_red(nc_acc[nc_q], (${vec.map})); }`);
      }
      return `${loads.join('\n      ')}\n      ${uses.join('\n      ')}`;
    };
    loop = `const ${idx} nc_step = (${idx})gridDim.y * 8;
    ${idx} nc_r0 = (${idx})blockIdx.y * 8 + nc_ty;
    for (; nc_r0 + ${U - 1} * nc_step < nc_k; nc_r0 += ${U} * nc_step) {
      ${body(U)}
    }
    for (; nc_r0 < nc_k; nc_r0 += nc_step) {
      ${body(1)}
    }`;
  } else {
    loop = stridedLoop(spec, v, idx, `(${idx})blockIdx.y * 8 + nc_ty`, `(${idx})gridDim.y * 8`).replace(/nc_acc\b(?!_)/g, 'nc_acc[0]');
  }
  // Per output q of the thread's E: nc_o and nc_acc as the spec's post expects them.
  const each = (code: string) => `
    #pragma unroll
    for (int nc_q = 0; nc_q < ${E}; nc_q++) { const ${idx} nc_o = nc_o0 + nc_q; const nc_acc_t nc_acc = nc_accs[nc_q]; (void)nc_acc; ${code} }`;
  return `${header(spec, v, name)} {
  using namespace ${name}_ns;
  __shared__ __align__(16) unsigned char nc_raw[8 * 33 * ${E} * sizeof(nc_acc_t)];
  nc_acc_t* nc_s = reinterpret_cast<nc_acc_t*>(nc_raw);
  __shared__ bool nc_last;
  const int nc_tx = threadIdx.x, nc_ty = threadIdx.y;
  const ${idx} nc_o0 = ((${idx})blockIdx.x * 32 + nc_tx) * ${E};
  const bool nc_live = nc_o0 < nc_m;
  const ${idx} nc_o = nc_o0;  // the thread's first output (E = 1: its only one)
  (void)nc_o;
  ${idx} nc_obase = 0;
  if (nc_live) { ${offsets('k', v.nk, idx, 'nc_o', 'nc_obase')} }
  nc_acc_t nc_acc[${E}];
  #pragma unroll
  for (int nc_q = 0; nc_q < ${E}; nc_q++) nc_acc[nc_q] = (${spec.neutral});
  if (nc_live) {
    ${loop}
  }
  #pragma unroll
  for (int nc_q = 0; nc_q < ${E}; nc_q++) nc_s[(nc_ty * 33 + nc_tx) * ${E} + nc_q] = nc_acc[nc_q];
  __syncthreads();
  nc_acc_t* nc_accs = nc_acc;
  if (nc_ty == 0) {
    #pragma unroll
    for (int nc_j = 1; nc_j < 8; nc_j++) {
      #pragma unroll
      for (int nc_q = 0; nc_q < ${E}; nc_q++) nc_acc[nc_q] = nc_red(nc_acc[nc_q], nc_s[(nc_j * 33 + nc_tx) * ${E} + nc_q]);
    }
  }
  if (gridDim.y == 1) {
    if (nc_ty == 0 && nc_live) { ${each(store(spec))} }
    return;
  }
  if (nc_ty == 0 && nc_live) { ${each(`nc_st_cg(&nc_partials[(long long)blockIdx.y * nc_m + nc_o], nc_acc);`)} }
  __threadfence();
  __syncthreads();
  if (nc_tx == 0 && nc_ty == 0) nc_last = atomicAdd(&nc_counters[blockIdx.x], 1u) == gridDim.y - 1;
  __syncthreads();
  if (!nc_last) return;
  __threadfence();
  if (nc_ty == 0 && nc_live) {
    #pragma unroll
    for (int nc_q = 0; nc_q < ${E}; nc_q++) {
      nc_acc[nc_q] = (${spec.neutral});
      for (unsigned int nc_j = 0; nc_j < gridDim.y; nc_j++) nc_acc[nc_q] = nc_red(nc_acc[nc_q], nc_ld_cg(&nc_partials[(long long)nc_j * nc_m + nc_o0 + nc_q]));
    }
    ${each(store(spec))}
  }
  if (nc_tx == 0 && nc_ty == 0) nc_counters[blockIdx.x] = 0;
}`;
}

/** Source of one reduction kernel (no preamble). */
export function reduceKernel(spec: ReduceSpec, v: ReduceVariant): { source: string; name: string } {
  const name = reduceKernelName(spec, v);
  const source = v.kind === 'rows' ? rows(spec, v, name) : v.kind === 'warp' ? warp(spec, v, name) : cols(spec, v, name);
  return { source: `${spec.preamble ?? ''}\n${source}`, name };
}
