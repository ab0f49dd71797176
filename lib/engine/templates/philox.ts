/**
 * Kernel source of the Philox4x32-10 generator (Salmon et al., SC'11; Random123) and its
 * distributions. Not an elementwise ufunc: one template per (distribution, dtype, store width).
 *
 * The stream: key = seed (k0 = low 32 bits, k1 = high 32 bits); main-stream block b is
 * Philox(counter = (lo32(b), hi32(b), 0, 0), key) → four 32-bit words, stream words 4b..4b+3.
 * A draw that takes C words per element (C = 1 for ≤ 32-bit results, C = 2 for float64 and
 * 64-bit integers) reads its element at unit e from words C·e..C·e+C-1, so block b holds U = 4/C
 * units. Element k of a call is unit e0 + k, e0 = ceil(offset / C) (offset in words, kept by the
 * host); so every element is a pure function of (seed, unit) and splitting a request anywhere
 * gives the same numbers. Box–Muller pairs are the unit pairs (2j, 2j+1) of one block (never
 * across blocks). Rejection samplers give element w (its first word) a private sub-stream:
 * counter = (lo32(w), hi32(w), attempt, tag) with tag 1 (integers) or 2 (poisson), which never
 * meets the main stream (tag 0).
 *
 * Each thread writes U·G consecutive elements per step (G blocks, G+1 when e0 is not block-aligned)
 * with 16-byte stores where the output is 16-byte aligned ('v' kernels), element stores otherwise
 * ('s'), stepping over the array by the grid's size (the grid holds a few waves of the device).
 */
import { envNumber } from '../../base/env';
import { DType } from '../../base/dtype';
import { PREAMBLE } from './preamble';

/** Most elements one launch writes (the kernels index elements with 32-bit integers). */
export const RANDOM_CHUNK = 2 ** 30;

/** Distributions with a kernel. */
export type Distribution = 'uniform' | 'normal' | 'lognormal' | 'exponential' | 'integers' | 'poisson';

/** Every distribution. */
export const DISTRIBUTIONS: readonly Distribution[] = ['uniform', 'normal', 'lognormal', 'exponential', 'integers', 'poisson'];

/** The dtypes each distribution can write. */
export function dtypesOf(dist: Distribution): readonly string[] {
  switch (dist) {
    case 'integers': return ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'];
    case 'poisson': return ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'float32', 'float64'];
    default: return ['float16', 'bfloat16', 'float32', 'float64'];
  }
}

/** 32-bit words of the stream one element takes (see the file comment). */
export function wordsPerElement(dist: Distribution, d: DType): 1 | 2 {
  if (dist === 'poisson') return 1; // only names its sub-stream
  return d.bytes === 8 ? 2 : 1;
}

// Bytes each thread writes (NODECUDA_RANDOM_THREAD_BYTES: 16, 32 or 64 overrides it). Measured on
// an H200 (float32, 2^28): uniform is fastest with one 16-byte store per thread (3.3 TB/s against
// 2.0 with two), the distributions with more arithmetic per word with two (normal: 2.4 against 2.1).
const THREAD_BYTES = envNumber('NODECUDA_RANDOM_THREAD_BYTES', 0, { min: 16, max: 64, oneOf: [16, 32, 64] });

/** Elements one thread writes: U units per block × G blocks (the thread bytes where the type allows). */
export function elementsPerThread(dist: Distribution, d: DType): number {
  const u = 4 / wordsPerElement(dist, d);
  const bytes = THREAD_BYTES || (dist === 'uniform' ? 16 : 32);
  return u * Math.max(1, bytes / (u * d.bytes));
}

/** Device code shared by every random kernel (after PREAMBLE). */
export const PHILOX_DEVICE = String.raw`
typedef unsigned long long nc_u64;
struct nc_ph4 { unsigned int x, y, z, w; };
// Philox4x32-10: ten rounds, the key bumped by the Weyl constants between rounds.
__device__ __forceinline__ nc_ph4 nc_philox(unsigned int c0, unsigned int c1, unsigned int c2, unsigned int c3,
    unsigned int k0, unsigned int k1) {
#pragma unroll
  for (int r = 0; r < 10; r++) {
    if (r) { k0 += 0x9E3779B9u; k1 += 0xBB67AE85u; }
    const nc_u64 p0 = (nc_u64)0xD2511F53u * c0, p1 = (nc_u64)0xCD9E8D57u * c2;
    const unsigned int n0 = (unsigned int)(p1 >> 32) ^ c1 ^ k0, n2 = (unsigned int)(p0 >> 32) ^ c3 ^ k1;
    c1 = (unsigned int)p1; c3 = (unsigned int)p0; c0 = n0; c2 = n2;
  }
  nc_ph4 o; o.x = c0; o.y = c1; o.z = c2; o.w = c3; return o;
}
struct nc_rp { unsigned int k0, k1; double a, b; nc_u64 ia, ib; };
__device__ __forceinline__ void nc_block(nc_u64 blk, const nc_rp& p, unsigned int x[4]) {
  const nc_ph4 r = nc_philox((unsigned int)blk, (unsigned int)(blk >> 32), 0u, 0u, p.k0, p.k1);
  x[0] = r.x; x[1] = r.y; x[2] = r.z; x[3] = r.w;
}
// [0, 1) on the 2^-24 grid (NumPy's float32 formula).
__device__ __forceinline__ float nc_u01f(unsigned int x) { return (float)(x >> 8) * 5.9604644775390625e-8f; }
// [0, 1) on the 2^-11 grid: exactly representable in float16.
__device__ __forceinline__ float nc_u01h(unsigned int x) { return (float)(x >> 21) * 4.8828125e-4f; }
// [0, 1) on the 2^-8 grid: exactly representable in bfloat16 (PyTorch's grid for bfloat16).
__device__ __forceinline__ float nc_u01b(unsigned int x) { return (float)(x >> 24) * 3.90625e-3f; }
// (0, 1]: x·2^-32 + 2^-33 (fine steps near 0, for log()).
__device__ __forceinline__ float nc_u01f_oc(unsigned int x) { return fmaf((float)x, 2.3283064365386963e-10f, 1.16415321826934814e-10f); }
// [0, 1) from 53 bits of two words (NumPy's next_double), and (0, 1].
__device__ __forceinline__ double nc_u01d(unsigned int a, unsigned int b) { return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6)) * 1.1102230246251565e-16; }
__device__ __forceinline__ double nc_u01d_oc(unsigned int a, unsigned int b) { return ((double)(a >> 5) * 67108864.0 + (double)(b >> 6) + 1.0) * 1.1102230246251565e-16; }
// ln u for u = nc_u01f_oc(x) at about half logf's cost: the hardware log2 (a few ulp below 0.5;
// absolute error ≤ 2^-22 on [0.5, 2], so relative ≤ 2^-15 down to |ln u| = 2^-7), and the series
// of ln(1 - t) to t^3 for t = 1 - u < 2^-7 (t exact by Sterbenz; the rest of the series < 2^-23 t).
__device__ __forceinline__ float nc_log_u01f(unsigned int x) {
  const float u = nc_u01f_oc(x), t = 1.0f - u;
  float l2;
  asm("lg2.approx.ftz.f32 %0, %1;" : "=f"(l2) : "f"(u));  // u ≥ 2^-33: never subnormal
  return t < 0.0078125f ? -t * fmaf(t, fmaf(t, 0.333333343f, 0.5f), 1.0f) : l2 * 0.693147182f;
}
// Box–Muller: two words → two standard normals. __sincosf is the hardware one, whose absolute
// error is ≤ 2^-21.41 on [-π, π] (the angle's range here).
__device__ __forceinline__ void nc_bm_f(unsigned int x, unsigned int y, float& z0, float& z1) {
  const float s2 = -2.0f * nc_log_u01f(x);
  const float r = s2 > 0.0f ? s2 * rsqrtf(s2) : 0.0f;  // sqrt within ~3 ulp, without sqrtf's slow path
  float s, c;
  __sincosf((float)(int)y * 1.4629180792671596e-9f, &s, &c);
  z0 = r * c; z1 = r * s;
}
__device__ __forceinline__ void nc_bm_d(unsigned int x0, unsigned int x1, unsigned int x2, unsigned int x3, double& z0, double& z1) {
  const double r = sqrt(-2.0 * log(nc_u01d_oc(x0, x1)));
  double s, c;
  sincospi(nc_u01d(x2, x3) * 2.0 - 1.0, &s, &c);
  z0 = r * c; z1 = r * s;
}
// Lemire's multiply-shift with rejection: unbiased in [0, range) (range 0 means 2^32 / 2^64).
// The rare path (low word below the range) out of line: keeps the kernels small.
__device__ __noinline__ unsigned int nc_lemire32_slow(nc_u64 m, unsigned int range, nc_u64 w, const nc_rp& p) {
  const unsigned int t = (0u - range) % range;
  for (unsigned int at = 1; (unsigned int)m < t; at++) {
    m = (nc_u64)nc_philox((unsigned int)w, (unsigned int)(w >> 32), at, 1u, p.k0, p.k1).x * range;
  }
  return (unsigned int)(m >> 32);
}
__device__ __forceinline__ unsigned int nc_lemire32(unsigned int x, unsigned int range, nc_u64 w, const nc_rp& p) {
  if (range == 0) return x;
  const nc_u64 m = (nc_u64)x * range;
  return (unsigned int)m < range ? nc_lemire32_slow(m, range, w, p) : (unsigned int)(m >> 32);
}
__device__ __noinline__ nc_u64 nc_lemire64_slow(nc_u64 x, nc_u64 range, nc_u64 w, const nc_rp& p) {
  const nc_u64 t = (0ull - range) % range;
  for (unsigned int at = 1; x * range < t; at++) {
    const nc_ph4 r = nc_philox((unsigned int)w, (unsigned int)(w >> 32), at, 1u, p.k0, p.k1);
    x = (nc_u64)r.x | ((nc_u64)r.y << 32);
  }
  return __umul64hi(x, range);
}
__device__ __forceinline__ nc_u64 nc_lemire64(nc_u64 x, nc_u64 range, nc_u64 w, const nc_rp& p) {
  if (range == 0) return x;
  const nc_u64 lo = x * range;
  return lo < range ? nc_lemire64_slow(x, range, w, p) : __umul64hi(x, range);
}
// Poisson(lam) for the element whose sub-stream is w: multiplication (Knuth) below 10, Hörmann's
// PTRS (transformed rejection with squeeze, as NumPy) from 10. enlam = exp(-lam).
__device__ __noinline__ long long nc_poisson(double lam, double enlam, nc_u64 w, const nc_rp& p) {
  const unsigned int w0 = (unsigned int)w, w1 = (unsigned int)(w >> 32);
  if (lam < 10.0) {
    double prod = 1.0;
    long long k = 0;
    for (unsigned int j = 0;; j++) {
      const nc_ph4 r = nc_philox(w0, w1, j, 2u, p.k0, p.k1);
      const unsigned int xs[4] = {r.x, r.y, r.z, r.w};
#pragma unroll
      for (int q = 0; q < 4; q++) {
        prod *= ((double)xs[q] + 1.0) * 2.3283064365386963e-10;
        if (prod <= enlam) return k;
        k++;
      }
    }
  }
  const double slam = sqrt(lam), loglam = log(lam), b = 0.931 + 2.53 * slam, a = -0.059 + 0.02483 * b;
  const double invalpha = 1.1239 + 1.1328 / (b - 3.4), vr = 0.9277 - 3.6224 / (b - 2.0);
  for (unsigned int j = 0;; j++) {
    const nc_ph4 r = nc_philox(w0, w1, j, 2u, p.k0, p.k1);
    const double U = nc_u01d(r.x, r.y) - 0.5, V = nc_u01d(r.z, r.w), us = 0.5 - fabs(U);
    if (!(us > 0.0)) continue;
    const long long k = (long long)floor((2.0 * a / us + b) * U + lam + 0.43);
    if (us >= 0.07 && V <= vr) return k;
    if (k < 0 || (us < 0.013 && V > us)) continue;
    if (log(V) + log(invalpha) - log(a / (us * us) + b) <= -lam + (double)k * loglam - lgamma((double)k + 1.0)) return k;
  }
}
// One thread: U*G elements from blocks b0.. (one more block when the first unit is at lane SH).
template <typename D, int SH, bool VEC>
__device__ __forceinline__ void nc_rand_run(typename D::S* __restrict__ out, unsigned int i0, unsigned int n, nc_u64 b0, const nc_rp& p) {
  typename D::R v[D::U * (D::G + 1)];
#pragma unroll
  for (int g = 0; g < D::G + (SH ? 1 : 0); g++) D::gen(b0 + g, p, v + g * D::U);
  if (VEC && i0 + D::U * D::G <= n) {
    nc_vec<typename D::S, D::U * D::G> o;
#pragma unroll
    for (int j = 0; j < D::U * D::G; j++) o.v[j] = NC_STORE(typename D::S, v[SH + j]);
    *reinterpret_cast<nc_vec<typename D::S, D::U * D::G>*>(out + i0) = o;
  } else {
#pragma unroll
    for (int j = 0; j < D::U * D::G; j++) if (i0 + j < n) out[i0 + j] = NC_STORE(typename D::S, v[SH + j]);
  }
}
// Grid-stride: a grid sized to the device (not to n) writes U*G elements per thread and step.
// 32-bit element indices (the host launches at most 2^30 elements at a time); since i0 is a
// multiple of U, the first block of element i0 is e0 / U + i0 / U.
template <typename D, int SH, bool VEC>
__device__ __forceinline__ void nc_rand_loop(typename D::S* __restrict__ out, unsigned int n, nc_u64 e0, const nc_rp& p) {
  const unsigned int step = gridDim.x * blockDim.x * (D::U * D::G);
  const nc_u64 eb = e0 / D::U;
  for (unsigned int i0 = (blockIdx.x * blockDim.x + threadIdx.x) * (D::U * D::G); i0 < n; i0 += step) {
    nc_rand_run<D, SH, VEC>(out, i0, n, eb + i0 / D::U, p);
  }
}
template <typename D, bool VEC>
__device__ __forceinline__ void nc_rand(typename D::S* __restrict__ out, nc_u64 n, nc_u64 e0, const nc_rp& p) {
  switch ((int)(e0 % D::U)) {  // the same for every element a thread starts at (multiples of U)
    case 0: nc_rand_loop<D, 0, VEC>(out, (unsigned int)n, e0, p); break;
    case 1: nc_rand_loop<D, 1, VEC>(out, (unsigned int)n, e0, p); break;
    case 2: nc_rand_loop<D, (2 < D::U ? 2 : 0), VEC>(out, (unsigned int)n, e0, p); break;
    default: nc_rand_loop<D, (3 < D::U ? 3 : 0), VEC>(out, (unsigned int)n, e0, p); break;
  }
}
`;

/** The values of one block's units (`x` words; `w` = first word of lane l is blk*4 + l*C). */
function genBody(dist: Distribution, d: DType): { r: string; body: string } {
  const f64 = d.name === 'float64';
  const ff = (s: string) => (f64 ? s : `${s}f`);
  const a = f64 ? 'p.a' : '(float)p.a';
  const b = f64 ? 'p.b' : '(float)p.b';
  const block = 'unsigned int x[4]; nc_block(blk, p, x);';
  switch (dist) {
    case 'uniform':
      if (f64) return { r: 'double', body: `${block} for (int l = 0; l < 2; l++) v[l] = fma(nc_u01d(x[2 * l], x[2 * l + 1]), p.b, p.a);` };
      return { r: 'float', body: `${block} for (int l = 0; l < 4; l++) v[l] = fmaf(${d.name === 'float16' ? 'nc_u01h' : d.name === 'bfloat16' ? 'nc_u01b' : 'nc_u01f'}(x[l]), ${b}, ${a});` };
    case 'normal':
    case 'lognormal': {
      const e = dist === 'lognormal' ? ff('exp') : '';
      if (f64) return { r: 'double', body: `${block} double z[2]; nc_bm_d(x[0], x[1], x[2], x[3], z[0], z[1]);
    for (int l = 0; l < 2; l++) v[l] = ${e}(fma(z[l], p.b, p.a));` };
      return { r: 'float', body: `${block} float z[4]; nc_bm_f(x[0], x[1], z[0], z[1]); nc_bm_f(x[2], x[3], z[2], z[3]);
    for (int l = 0; l < 4; l++) v[l] = ${e}(fmaf(z[l], ${b}, ${a}));` };
    }
    case 'exponential':
      if (f64) return { r: 'double', body: `${block} for (int l = 0; l < 2; l++) v[l] = (0.0 - log(nc_u01d_oc(x[2 * l], x[2 * l + 1]))) * p.a;` };
      return { r: 'float', body: `${block} for (int l = 0; l < 4; l++) v[l] = (0.0f - nc_log_u01f(x[l])) * (float)p.a;` };
    case 'integers':
      if (d.bytes === 8) {
        return { r: 'nc_u64', body: `${block} for (int l = 0; l < 2; l++)
      v[l] = p.ia + nc_lemire64((nc_u64)x[2 * l] | ((nc_u64)x[2 * l + 1] << 32), p.ib, blk * 4 + 2 * l, p);` };
      }
      return { r: 'nc_u64', body: `${block} for (int l = 0; l < 4; l++) v[l] = p.ia + nc_lemire32(x[l], (unsigned int)p.ib, blk * 4 + l, p);` };
    case 'poisson':
      return { r: 'long long', body: 'for (int l = 0; l < 4; l++) v[l] = nc_poisson(p.a, p.b, blk * 4 + l, p);' };
  }
}

/** Name of the kernel for (distribution, dtype, vector stores?). */
export function randomKernelName(dist: Distribution, d: DType, vec: boolean): string {
  return `nc_philox_${dist}_${d.name}_${vec ? 'v' : 's'}`;
}

/**
 * The kernel for (distribution, dtype, vector stores?) without the shared device code, so that
 * several can share one module. Parameters: (out, n, e0, k0, k1, a, b, ia, ib) — 64 bytes;
 * n ≤ 2^30 (RANDOM_CHUNK) per launch.
 */
export function randomKernelBody(dist: Distribution, d: DType, vec: boolean): { source: string; name: string } {
  if (!dtypesOf(dist).includes(d.name)) throw new Error(`no ${dist} kernel for ${d.name}`);
  const name = randomKernelName(dist, d, vec);
  const gen = `nc_gen_${dist}_${d.name}`;
  const u = 4 / wordsPerElement(dist, d);
  const g = elementsPerThread(dist, d) / u;
  const { r, body } = genBody(dist, d);
  const s = d.storageC;
  // The distribution's struct is emitted once per module (both store variants use it).
  const source = `#ifndef ${gen.toUpperCase()}
#define ${gen.toUpperCase()}
struct ${gen} {
  typedef ${r} R; typedef ${s} S; enum { U = ${u}, G = ${g} };
  __device__ static __forceinline__ void gen(nc_u64 blk, const nc_rp& p, R* v) {
    ${body}
  }
};
#endif
extern "C" __global__ void ${name}(${s}* __restrict__ out, nc_u64 n, nc_u64 e0, unsigned int k0, unsigned int k1,
    double a, double b, nc_u64 ia, nc_u64 ib) {
  nc_rp p; p.k0 = k0; p.k1 = k1; p.a = a; p.b = b; p.ia = ia; p.ib = ib;
  nc_rand<${gen}, ${vec}>(out, n, e0, p);
}
`;
  return { source, name };
}

/** Complete source of one random kernel (PREAMBLE + Philox + the kernel). */
export function randomKernel(dist: Distribution, d: DType, vec: boolean): { source: string; name: string } {
  const k = randomKernelBody(dist, d, vec);
  return { source: `${PREAMBLE}${PHILOX_DEVICE}${k.source}`, name: k.name };
}
