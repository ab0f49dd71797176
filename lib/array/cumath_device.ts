/**
 * Device helpers of the cumath rows (cumath.ts): MATH_PREAMBLE for the first table (BASE), and
 * MATH_MORE_PREAMBLE, appended to it for the rows added later (MORE: square … nanToNum) only, so
 * the kernels of the first rows (and their precompiled images) keep their source. NumPy's
 * algorithms, cited per helper.
 */

/** Device helpers the table's complex and integer expressions use. */
export const MATH_PREAMBLE = String.raw`
template <typename T> __device__ __forceinline__ T nc_sign(T x) {
  return x > 0 ? (T)1 : (x < (T)0 ? (T)-1 : (x == 0 ? (T)0 : x));
}
template <typename T> __device__ __forceinline__ T nc_ifmod(T a, T b) {
  // C remainder (sign of a) like NumPy's integer fmod; 0 for b == 0 and for MIN % -1.
  if (b == 0 || ((T)-1 < (T)0 && b == (T)-1)) return 0;
  return a % b;
}
template <typename T> __device__ __forceinline__ int nc_exponent(T e) {
  return e > (T)100000 ? 100000 : (e < (T)-100000 ? -100000 : (int)e);
}
#define NC_C(R) nc_complex<R>
template <typename R> __device__ __forceinline__ NC_C(R) nc_cexp(NC_C(R) z) {
  if (z.im == 0) return NC_C(R)(exp(z.re), z.im);
  const R e = exp(z.re);
  return NC_C(R)(e * cos(z.im), e * sin(z.im));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog(NC_C(R) z) { return NC_C(R)(log(hypot(z.re, z.im)), atan2(z.im, z.re)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_cscale(NC_C(R) z, R s) { return NC_C(R)(z.re * s, z.im * s); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_cexp2(NC_C(R) z) { return nc_cexp(nc_cscale(z, (R)0.693147180559945309417)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog2(NC_C(R) z) { return nc_cscale(nc_clog(z), (R)1.44269504088896340736); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog10(NC_C(R) z) { return nc_cscale(nc_clog(z), (R)0.434294481903251827651); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_cexpm1(NC_C(R) z) {
  // NumPy's nc_expm1: no cancellation for small |z|.
  const R a = sin(z.im / 2);
  return NC_C(R)(expm1(z.re) * cos(z.im) - 2 * a * a, exp(z.re) * sin(z.im));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_clog1p(NC_C(R) z) {
  return NC_C(R)(log(hypot(z.re + 1, z.im)), atan2(z.im, z.re + 1));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_csqrt(NC_C(R) z) {
  if (z.re == 0 && z.im == 0) return NC_C(R)(0, z.im);
  if (isinf(z.im)) return NC_C(R)(fabs(z.im), z.im);
  const R t = sqrt((fabs(z.re) + hypot(z.re, z.im)) / 2);
  if (z.re >= 0) return NC_C(R)(t, z.im / (2 * t));
  return NC_C(R)(fabs(z.im) / (2 * t), copysign(t, z.im));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_csinh(NC_C(R) z) { return NC_C(R)(sinh(z.re) * cos(z.im), cosh(z.re) * sin(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_ccosh(NC_C(R) z) { return NC_C(R)(cosh(z.re) * cos(z.im), sinh(z.re) * sin(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_csin(NC_C(R) z) { return NC_C(R)(sin(z.re) * cosh(z.im), cos(z.re) * sinh(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_ccos(NC_C(R) z) { return NC_C(R)(cos(z.re) * cosh(z.im), -(sin(z.re) * sinh(z.im))); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_ctanh(NC_C(R) z) {
  // Kahan's algorithm (as C99 ctanh in FreeBSD's libm).
  const R x = z.re, y = z.im;
  if (isnan(x)) return NC_C(R)(x, y == 0 ? y : x);
  if (isinf(x)) return NC_C(R)(copysign((R)1, x), copysign((R)0, isinf(y) ? y : sin(y) * cos(y)));
  if (!isfinite(y)) return NC_C(R)(y - y, y - y);
  if (fabs(x) >= (sizeof(R) == 4 ? (R)9 : (R)22)) {
    return NC_C(R)(copysign((R)1, x), 4 * sin(y) * cos(y) * exp(-2 * fabs(x)));
  }
  const R t = tan(y), beta = 1 + t * t, s = sinh(x), rho = sqrt(1 + s * s), den = 1 + beta * s * s;
  return NC_C(R)(beta * rho * s / den, t / den);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_ctan(NC_C(R) z) {
  const NC_C(R) w = nc_ctanh(NC_C(R)(-z.im, z.re)); // tan z = -i tanh(iz)
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_casin(NC_C(R) z) {
  // asin z = -i log(iz + sqrt(1 - z^2))
  const NC_C(R) w = nc_clog(NC_C(R)(-z.im, z.re) + nc_csqrt(NC_C(R)(1, 0) - z * z));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_cacos(NC_C(R) z) {
  // acos z = -i log(z + i sqrt(1 - z^2))
  const NC_C(R) s = nc_csqrt(NC_C(R)(1, 0) - z * z);
  const NC_C(R) w = nc_clog(z + NC_C(R)(-s.im, s.re));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_catan(NC_C(R) z) {
  // atan z = (i/2) (log(1 - iz) - log(1 + iz))
  const NC_C(R) d = nc_clog(NC_C(R)(1 + z.im, -z.re)) - nc_clog(NC_C(R)(1 - z.im, z.re));
  return NC_C(R)(-d.im / 2, d.re / 2);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_casinh(NC_C(R) z) {
  // asinh z = -i asin(iz)
  const NC_C(R) w = nc_casin(NC_C(R)(-z.im, z.re));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_cacosh(NC_C(R) z) {
  // acosh z = log(z + sqrt(z + 1) sqrt(z - 1)): the principal branch (DLMF 4.37.21)
  return nc_clog(z + nc_csqrt(z + NC_C(R)(1, 0)) * nc_csqrt(z - NC_C(R)(1, 0)));
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_catanh(NC_C(R) z) {
  // atanh z = -i atan(iz) = (log(1 + z) - log(1 - z)) / 2
  const NC_C(R) w = nc_catan(NC_C(R)(-z.im, z.re));
  return NC_C(R)(w.im, -w.re);
}
template <typename R> __device__ __forceinline__ NC_C(R) nc_crint(NC_C(R) z) { return NC_C(R)(rint(z.re), rint(z.im)); }
template <typename R> __device__ __forceinline__ NC_C(R) nc_csign(NC_C(R) z) {
  // NumPy 2: z / |z| (0 for 0; unit along an infinite part; NaN when both are infinite or any is NaN).
  const R a = hypot(z.re, z.im);
  if (isnan(a) || (isinf(z.re) && isinf(z.im))) { const R n = (R)__int_as_float(0x7fc00000); return NC_C(R)(n, n); }
  if (isinf(a)) return isinf(z.re) ? NC_C(R)(copysign((R)1, z.re), 0) : NC_C(R)(0, copysign((R)1, z.im));
  if (a == 0) return NC_C(R)(0, 0);
  return NC_C(R)(z.re / a, z.im / a);
}
#undef NC_C
`;


/** CUDA C of the helpers (uses nc_complex, nc_isnan, nc_cscale, nc_csin from the preambles before it). */
export const MATH_MORE_PREAMBLE = String.raw`
template <typename T> __device__ __forceinline__ T nc_logaddexp(T x, T y) {
  // npy_logaddexp: equal arguments (equal infinities too) give x + log 2, never inf - inf.
  if (x == y) return x + (T)0.693147180559945309417232121458176568;
  const T d = x - y;
  if (d > 0) return x + log1p(exp(-d));
  if (d <= 0) return y + log1p(exp(d));
  return d;  // NaN
}
template <typename T> __device__ __forceinline__ T nc_logaddexp2(T x, T y) {
  // npy_logaddexp2 (npy_log2_1p(v) = LOG2E * log1p(v)).
  if (x == y) return x + 1;
  const T d = x - y, log2e = (T)1.442695040888963407359924681001892137;
  if (d > 0) return x + log2e * log1p(exp2(-d));
  if (d <= 0) return y + log2e * log1p(exp2(d));
  return d;
}
template <typename T> __device__ __forceinline__ T nc_heaviside(T x, T h0) {
  return x != x ? x : (x == 0 ? h0 : (x < 0 ? (T)0 : (T)1));
}
// float16 (BF false) and bfloat16 (BF true) nextafter on the 16-bit pattern, as npy_half_nextafter
// (x itself when x == y): the compute type is float, every step is one in the 16-bit type.
template <bool BF> __device__ __forceinline__ unsigned short nc_bits16(float v) { return BF ? nc_f2bf(v).x : nc_f2h(v).x; }
template <bool BF> __device__ __forceinline__ float nc_from16(unsigned short b) {
  if (BF) { nc_bf16 h; h.x = b; return nc_bf2f(h); }
  nc_half h; h.x = b; return nc_h2f(h);
}
template <bool BF> __device__ __forceinline__ float nc_nextafter16(float xf, float yf) {
  const unsigned short hx = nc_bits16<BF>(xf);
  const float x = nc_from16<BF>(hx), y = nc_from16<BF>(nc_bits16<BF>(yf));  // the operands in the 16-bit type
  if (x != x || y != y) return x + y;
  if (x == y) return x;
  if (x == 0) return nc_from16<BF>((unsigned short)((y < 0 ? 0x8000u : 0u) | 1u));  // the smallest subnormal toward y
  return nc_from16<BF>((unsigned short)(((y > x) == (x > 0)) ? hx + 1 : hx - 1));  // away from zero, or toward it
}
__device__ __forceinline__ int nc_ctz(unsigned v) { return __ffs((int)v) - 1; }
__device__ __forceinline__ int nc_ctz(unsigned long long v) { return __ffsll((long long)v) - 1; }
template <typename U> __device__ __forceinline__ U nc_gcdu(U a, U b) {
  // gcd of unsigned values, npy_gcdu's result by the binary algorithm (no division).
  if (a == 0) return b;
  if (b == 0) return a;
  const int s = nc_ctz(a | b);
  a >>= nc_ctz(a);
  do {
    b >>= nc_ctz(b);
    if (a > b) { const U t = a; a = b; b = t; }
    b -= a;
  } while (b != 0);
  return a << s;
}
template <typename U> __device__ __forceinline__ U nc_lcmu(U a, U b) {
  const U g = nc_gcdu(a, b);
  return g == 0 ? (U)0 : a / g * b;  // wraps like npy_lcmu
}
template <typename U, typename T> __device__ __forceinline__ U nc_uabs(T v) { return v < 0 ? (U)0 - (U)v : (U)v; }
template <typename T> __device__ __forceinline__ T nc_sinc(T x) {
  // np.sinc: y = pi x, sin(y) / y, 1 where y is 0.
  const T y = (T)3.14159265358979323846 * x;
  return y == 0 ? (T)1 : sin(y) / y;
}
template <typename R> __device__ __forceinline__ nc_complex<R> nc_csinc(nc_complex<R> z) {
  const nc_complex<R> y = nc_cscale(z, (R)3.14159265358979323846);
  return y.re == 0 && y.im == 0 ? nc_complex<R>(1, 0) : nc_csin(y) / y;
}
template <typename R> __device__ __forceinline__ nc_complex<R> nc_crecip(nc_complex<R> z) {
  // NumPy's complex reciprocal (Smith's algorithm).
  if (fabs(z.im) <= fabs(z.re)) { const R r = z.im / z.re, d = z.re + z.im * r; return nc_complex<R>(1 / d, -r / d); }
  const R r = z.re / z.im, d = z.re * r + z.im;
  return nc_complex<R>(r / d, -1 / d);
}
template <typename R> __device__ __forceinline__ nc_complex<R> nc_cfmax(nc_complex<R> a, nc_complex<R> b) {
  // NumPy's complex fmax: the operand without NaN wins, else the lexicographic maximum.
  return nc_isnan(b) || (!nc_isnan(a) && a >= b) ? a : b;
}
template <typename R> __device__ __forceinline__ nc_complex<R> nc_cfmin(nc_complex<R> a, nc_complex<R> b) {
  return nc_isnan(b) || (!nc_isnan(a) && a <= b) ? a : b;
}
template <typename T> __device__ __forceinline__ T nc_nan2num(T v, T nan, T posinf, T neginf) {
  return v != v ? nan : (isinf(v) ? (v > 0 ? posinf : neginf) : v);
}
`;
