/**
 * The helpers every generated kernel starts with: no headers (NVRTC needs none and compiles
 * faster), our own half and complex types, and the vector type used for 16-byte accesses.
 */

/** CUDA C source of the helpers (half via PTX cvt, bfloat16 in integer ops, complex with NumPy's semantics). */
export const PREAMBLE = String.raw`
// bool storage: one byte, a type of its own so it never matches uint8's overloads.
struct __align__(1) nc_bool { unsigned char v; };
struct __align__(2) nc_half { unsigned short x; };
__device__ __forceinline__ float nc_h2f(nc_half h) { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h.x)); return f; }
__device__ __forceinline__ nc_half nc_f2h(float f) { nc_half h; asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h.x) : "f"(f)); return h; }
// bfloat16: the top half of a float32. Integer conversions (no bf16 cvt before sm_80): to float
// is a shift; from float rounds to nearest even, NaN → quiet NaN 0x7fc0 (sign kept), overflow → Inf.
struct __align__(2) nc_bf16 { unsigned short x; };
__device__ __forceinline__ float nc_bf2f(nc_bf16 h) { return __uint_as_float((unsigned)h.x << 16); }
__device__ __forceinline__ nc_bf16 nc_f2bf(float f) {
  const unsigned u = __float_as_uint(f);
  nc_bf16 h;
  h.x = (unsigned short)((u & 0x7fffffffu) > 0x7f800000u ? ((u >> 16) & 0x8000u) | 0x7fc0u : (u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
  return h;
}
// Wider values round correctly through float rounded to odd (toward zero, then the low bit set
// when inexact): float keeps 16 more bits than bfloat16, so the second rounding cannot tie wrongly.
__device__ __forceinline__ nc_bf16 nc_odd2bf(float rz, bool inexact) { return nc_f2bf(__uint_as_float(__float_as_uint(rz) | (inexact ? 1u : 0u))); }
__device__ __forceinline__ nc_bf16 nc_d2bf(double d) {
  float f; double b;
  asm("cvt.rz.f32.f64 %0, %1;" : "=f"(f) : "d"(d));
  asm("cvt.f64.f32 %0, %1;" : "=d"(b) : "f"(f));
  return nc_odd2bf(f, b != d);
}
__device__ __forceinline__ nc_bf16 nc_i2bf(int v) { float f; asm("cvt.rz.f32.s32 %0, %1;" : "=f"(f) : "r"(v)); return nc_odd2bf(f, (int)f != v); }
__device__ __forceinline__ nc_bf16 nc_u2bf(unsigned v) { float f; asm("cvt.rz.f32.u32 %0, %1;" : "=f"(f) : "r"(v)); return nc_odd2bf(f, (unsigned)f != v); }
__device__ __forceinline__ nc_bf16 nc_ll2bf(long long v) { float f; asm("cvt.rz.f32.s64 %0, %1;" : "=f"(f) : "l"(v)); return nc_odd2bf(f, (long long)f != v); }
__device__ __forceinline__ nc_bf16 nc_ull2bf(unsigned long long v) { float f; asm("cvt.rz.f32.u64 %0, %1;" : "=f"(f) : "l"(v)); return nc_odd2bf(f, (unsigned long long)f != v); }

template <typename R> struct nc_complex {
  R re, im;
  __device__ nc_complex() {}
  __device__ nc_complex(R r, R i = 0) : re(r), im(i) {}
  template <typename S> __device__ explicit nc_complex(const nc_complex<S>& o) : re((R)o.re), im((R)o.im) {}
};
typedef nc_complex<float> nc_c64_t;
typedef nc_complex<double> nc_c128_t;
struct __align__(8) nc_c64 { float re, im; };
struct __align__(16) nc_c128 { double re, im; };
template <typename R> __device__ __forceinline__ nc_complex<R> operator+(nc_complex<R> a, nc_complex<R> b) { return nc_complex<R>(a.re + b.re, a.im + b.im); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator-(nc_complex<R> a, nc_complex<R> b) { return nc_complex<R>(a.re - b.re, a.im - b.im); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator-(nc_complex<R> a) { return nc_complex<R>(-a.re, -a.im); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator*(nc_complex<R> a, nc_complex<R> b) { return nc_complex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator/(nc_complex<R> a, nc_complex<R> b) {
  // Smith's algorithm, as NumPy uses.
  R abr = fabs(b.re), abi = fabs(b.im);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return nc_complex<R>(a.re / abr, a.im / abi);
    R rat = b.im / b.re, scl = (R)1.0 / (b.re + b.im * rat);
    return nc_complex<R>((a.re + a.im * rat) * scl, (a.im - a.re * rat) * scl);
  }
  R rat = b.re / b.im, scl = (R)1.0 / (b.im + b.re * rat);
  return nc_complex<R>((a.re * rat + a.im) * scl, (a.im * rat - a.re) * scl);
}
template <typename R> __device__ __forceinline__ bool operator==(nc_complex<R> a, nc_complex<R> b) { return a.re == b.re && a.im == b.im; }
template <typename R> __device__ __forceinline__ bool operator!=(nc_complex<R> a, nc_complex<R> b) { return !(a == b); }
// NumPy orders complex numbers lexicographically (real part first).
template <typename R> __device__ __forceinline__ bool operator<(nc_complex<R> a, nc_complex<R> b) { return a.re < b.re || (a.re == b.re && a.im < b.im); }
template <typename R> __device__ __forceinline__ bool operator<=(nc_complex<R> a, nc_complex<R> b) { return a.re < b.re || (a.re == b.re && a.im <= b.im); }
template <typename R> __device__ __forceinline__ bool operator>(nc_complex<R> a, nc_complex<R> b) { return b < a; }
template <typename R> __device__ __forceinline__ bool operator>=(nc_complex<R> a, nc_complex<R> b) { return b <= a; }
template <typename R> __device__ __forceinline__ bool nc_nonzero(nc_complex<R> a) { return a.re != 0 || a.im != 0; }
template <typename T> __device__ __forceinline__ bool nc_nonzero(T a) { return a != 0; }
template <typename R> __device__ __forceinline__ bool nc_isnan(nc_complex<R> a) { return a.re != a.re || a.im != a.im; }
template <typename T> __device__ __forceinline__ bool nc_isnan(T a) { return a != a; }

// Storage <-> compute conversions.
__device__ __forceinline__ float nc_load(nc_half v) { return nc_h2f(v); }
__device__ __forceinline__ float nc_load(nc_bf16 v) { return nc_bf2f(v); }
__device__ __forceinline__ bool nc_load(nc_bool v) { return v.v != 0; }
__device__ __forceinline__ nc_c64_t nc_load(nc_c64 v) { return nc_c64_t(v.re, v.im); }
__device__ __forceinline__ nc_c128_t nc_load(nc_c128 v) { return nc_c128_t(v.re, v.im); }
template <typename T> __device__ __forceinline__ T nc_load(T v) { return v; }

template <typename S> struct nc_store_t { template <typename T> __device__ static S cvt(T v) { return (S)v; }
  template <typename R> __device__ static S cvt(nc_complex<R> v) { return (S)v.re; } };
template <> struct nc_store_t<nc_bool> { template <typename T> __device__ static nc_bool cvt(T v) { nc_bool b; b.v = nc_nonzero(v) ? 1 : 0; return b; } };
__device__ __forceinline__ nc_half nc_d2h(double d) { nc_half h; asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h.x) : "d"(d)); return h; }
template <> struct nc_store_t<nc_half> { template <typename T> __device__ static nc_half cvt(T v) { return nc_f2h((float)v); }
  __device__ static nc_half cvt(double v) { return nc_d2h(v); }
  template <typename R> __device__ static nc_half cvt(nc_complex<R> v) { return cvt(v.re); } };  // complex128: one rounding
template <> struct nc_store_t<nc_bf16> { template <typename T> __device__ static nc_bf16 cvt(T v) { return nc_f2bf((float)v); }
  __device__ static nc_bf16 cvt(double v) { return nc_d2bf(v); }
  __device__ static nc_bf16 cvt(int v) { return nc_i2bf(v); }
  __device__ static nc_bf16 cvt(unsigned v) { return nc_u2bf(v); }
  __device__ static nc_bf16 cvt(long v) { return nc_ll2bf(v); }
  __device__ static nc_bf16 cvt(unsigned long v) { return nc_ull2bf(v); }
  __device__ static nc_bf16 cvt(long long v) { return nc_ll2bf(v); }
  __device__ static nc_bf16 cvt(unsigned long long v) { return nc_ull2bf(v); }
  template <typename R> __device__ static nc_bf16 cvt(nc_complex<R> v) { return cvt(v.re); } };
template <> struct nc_store_t<nc_c64> { template <typename T> __device__ static nc_c64 cvt(T v) { nc_c64 r; r.re = (float)v; r.im = 0; return r; }
  template <typename R> __device__ static nc_c64 cvt(nc_complex<R> v) { nc_c64 r; r.re = (float)v.re; r.im = (float)v.im; return r; } };
template <> struct nc_store_t<nc_c128> { template <typename T> __device__ static nc_c128 cvt(T v) { nc_c128 r; r.re = (double)v; r.im = 0; return r; }
  template <typename R> __device__ static nc_c128 cvt(nc_complex<R> v) { nc_c128 r; r.re = v.re; r.im = v.im; return r; } };
#define NC_STORE(S, v) (nc_store_t<S>::cvt(v))

// Compute-type conversion (casts between real, complex and bool compute types).
template <typename T> struct nc_to { template <typename V> __device__ static T cvt(V v) { return (T)v; }
  template <typename R> __device__ static T cvt(nc_complex<R> v) { return (T)v.re; } };
template <> struct nc_to<bool> { template <typename V> __device__ static bool cvt(V v) { return nc_nonzero(v); } };
template <typename R> struct nc_to<nc_complex<R> > { template <typename V> __device__ static nc_complex<R> cvt(V v) { return nc_complex<R>((R)v, 0); }
  template <typename S> __device__ static nc_complex<R> cvt(nc_complex<S> v) { return nc_complex<R>(v); } };
#define NC_TO(T, v) (nc_to<T>::cvt(v))

template <typename T, int E> struct alignas(sizeof(T) * E <= 16 ? sizeof(T) * E : 16) nc_vec { T v[E]; };
`;
