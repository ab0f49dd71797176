/**
 * Source generation for ElementwiseKernel: C declarator parsing, the helpers user code may use
 * (half, pycuda::complex, nc_raw, <stdint> names — no headers), the PyCUDA grid-stride kernel,
 * and the wrapper body that turns a CuPy-style operation into an ElementwiseSpec body.
 */
import { DTYPES, DType, dtypeOfCName, own } from '../../base/dtype';
import { typeError } from '../../base/errors';
import { PREAMBLE } from './preamble';
import { stripComments } from '../../base/c_source';

// Complex spellings of PyCUDA argument lists (and CuPy parameter types), beside the dtype table's cNames.
const COMPLEX_C: Readonly<Record<string, DType>> = {
  'pycuda::complex<float>': DTYPES.complex64, 'pycuda::complex<double>': DTYPES.complex128,
  float2: DTYPES.complex64, double2: DTYPES.complex128,
};

/** The dtype a C type names (PyCUDA spellings, or a dtype name such as `float32`), or undefined. */
export function cTypeDType(ctype: string): DType | undefined {
  const t = ctype.replace(/\s*([<>:])\s*/g, '$1').replace(/\s+/g, ' ').trim();
  return dtypeOfCName(t) ?? own(COMPLEX_C, t) ?? own(DTYPES, t);
}

/** One parsed PyCUDA argument. */
export interface CArg {
  name: string;
  dtype: DType;
  /** Pointer (array) or plain value (scalar). */
  pointer: boolean;
  /** The C type as generated (a dtype name becomes its C type). */
  ctype: string;
  isConst: boolean;
  /** Parameter alignment of a scalar in the launch buffer. */
  align: number;
}

const IDENT = /^[A-Za-z_]\w*$/;
const QUALIFIERS = new Set(['const', 'volatile', '__restrict__', '__restrict', 'restrict']);

/** The C type generated for a dtype (a dtype name spelled in an argument list). */
function cOf(d: DType): string {
  switch (d.name) {
    case 'float16': return 'half';
    case 'bfloat16': return '__nv_bfloat16';
    case 'complex64': return 'pycuda::complex<float>';
    case 'complex128': return 'pycuda::complex<double>';
    default: return d.ctype;
  }
}

/**
 * `[whole, type text, name, '[]' or undefined]` of a declaration `<type> name` / `<type> name[]`,
 * or null. A backward scan: the regex it replaces (`^(.*?)([A-Za-z_]\w*)\s*(\[\s*\])?$`) was
 * quadratic in a long identifier that does not end the text (40k characters took seconds).
 */
function splitDeclarator(d: string): [string, string, string, string | undefined] | null {
  let end = d.length;
  let brackets: string | undefined;
  if (d.endsWith(']')) {
    let j = end - 2;
    while (j >= 0 && /\s/.test(d[j])) j--;
    if (j < 0 || d[j] !== '[') return null;
    brackets = d.slice(j, end);
    end = j;
    while (end > 0 && /\s/.test(d[end - 1])) end--;
  }
  let k = end;
  while (k > 0 && /\w/.test(d[k - 1])) k--;
  // The regex took the longest identifier-shaped tail: skip leading digits of the word.
  while (k < end && /\d/.test(d[k])) k++;
  if (k === end) return null;
  return [d, d.slice(0, k), d.slice(k, end), brackets];
}

/**
 * Parses a PyCUDA argument list such as `"float a, const float *x, float *z"` (pointers are
 * arrays, plain types scalars). TypeError ERR_INVALID_ARG_VALUE for what it cannot parse.
 */
export function parseCArgs(decls: string): CArg[] {
  if (typeof decls !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', 'ElementwiseKernel: arguments must be a string of C declarations');
  const src = stripComments(decls).trim();
  if (src === '') return [];
  // Split on commas outside template brackets.
  const parts: string[] = [];
  let depth = 0, cur = '';
  for (const ch of src) {
    if (ch === '<') depth++;
    if (ch === '>') depth--;
    if (ch === ',' && depth === 0) { parts.push(cur); cur = ''; } else cur += ch;
  }
  parts.push(cur);
  const seen = new Set<string>();
  return parts.map((raw) => {
    const d = raw.trim();
    const m = splitDeclarator(d);
    const stars = (d.match(/\*/g) ?? []).length + (m?.[3] ? 1 : 0);
    const typeText = (m?.[1] ?? '').replace(/\*/g, ' ');
    const words = typeText.replace(/([<>:])/g, ' $1 ').split(/\s+/).filter(Boolean);
    const isConst = words.includes('const');
    const ctype = words.filter((w) => !QUALIFIERS.has(w)).join(' ').replace(/\s*([<>:])\s*/g, '$1');
    const dtype = ctype ? cTypeDType(ctype) : undefined;
    if (!m || !dtype || stars > 1) {
      throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel: cannot parse argument "${d}": expected "<type> name" or ` +
        `"<type> *name" with a type such as float, double, int, unsigned char, long long, half, bool, pycuda::complex<float>`);
    }
    const name = m[2];
    if (name === 'i' || name === 'n' || seen.has(name)) {
      throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel: argument name "${name}" is ${seen.has(name) ? 'repeated' : 'reserved (the loop uses i and n)'}`);
    }
    seen.add(name);
    const gen = cTypeDType(ctype) === DTYPES[ctype as keyof typeof DTYPES] ? cOf(dtype) : ctype;
    // pycuda::complex<R> is aligned like R; float2/double2 like the whole pair.
    const align = dtype.kind === 'c' && !/2$/.test(gen) ? dtype.bytes / 2 : dtype.align;
    return { name, dtype, pointer: stars === 1, ctype: gen, isConst, align };
  });
}

/**
 * The 16-bit float types of user code, after PREAMBLE: `half`/`__half` (nc_khalf) and
 * `__nv_bfloat16`/`nv_bfloat16` (nc_kbf16), storage types converting to and from float (bfloat16
 * rounding to nearest even on any arch). The four names are left out when `userPreamble` names
 * cuda_fp16.h or cuda_bf16.h.
 */
export function floatTypes(userPreamble: string): string {
  // cuda_bf16.h includes cuda_fp16.h, which declares struct __nv_bfloat16: either header keeps
  // both names to itself (with cuda_fp16.h alone, include cuda_bf16.h too to use bfloat16).
  const fp16 = /cuda_(fp|bf)16/.test(userPreamble);
  const parts: string[] = [];
  parts.push(String.raw`struct __align__(2) nc_khalf {
  unsigned short x;
  nc_khalf() = default;
  __device__ nc_khalf(float f) { asm("cvt.rn.f16.f32 %0, %1;" : "=h"(x) : "f"(f)); }
  __device__ nc_khalf(double d) { asm("cvt.rn.f16.f64 %0, %1;" : "=h"(x) : "d"(d)); }
  template <typename T> __device__ nc_khalf(T v) : nc_khalf((float)v) {}
  __device__ operator float() const { float f; asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(x)); return f; }
  __device__ nc_khalf& operator+=(float v) { return *this = nc_khalf((float)*this + v); }
  __device__ nc_khalf& operator-=(float v) { return *this = nc_khalf((float)*this - v); }
  __device__ nc_khalf& operator*=(float v) { return *this = nc_khalf((float)*this * v); }
  __device__ nc_khalf& operator/=(float v) { return *this = nc_khalf((float)*this / v); }
  __device__ nc_khalf operator-() const { nc_khalf h; h.x = x ^ 0x8000; return h; }
  __device__ nc_khalf operator+() const { return *this; }
};`);
  if (!fp16) parts.push('typedef nc_khalf half; typedef nc_khalf __half;');
  // bfloat16 for user code: conversions as NC_STORE's (round to nearest even, any arch).
  parts.push(String.raw`struct __align__(2) nc_kbf16 {
  unsigned short x;
  nc_kbf16() = default;
  __device__ nc_kbf16(float f) { x = nc_f2bf(f).x; }
  __device__ nc_kbf16(double d) { x = nc_d2bf(d).x; }
  __device__ nc_kbf16(int v) { x = nc_i2bf(v).x; }
  __device__ nc_kbf16(unsigned v) { x = nc_u2bf(v).x; }
  __device__ nc_kbf16(long long v) { x = nc_ll2bf(v).x; }
  __device__ nc_kbf16(unsigned long long v) { x = nc_ull2bf(v).x; }
  __device__ nc_kbf16(long v) { x = nc_ll2bf(v).x; }
  __device__ nc_kbf16(unsigned long v) { x = nc_ull2bf(v).x; }
  template <typename T> __device__ nc_kbf16(T v) : nc_kbf16((float)v) {}
  __device__ operator float() const { return __uint_as_float((unsigned)x << 16); }
  __device__ nc_kbf16& operator+=(float v) { return *this = nc_kbf16((float)*this + v); }
  __device__ nc_kbf16& operator-=(float v) { return *this = nc_kbf16((float)*this - v); }
  __device__ nc_kbf16& operator*=(float v) { return *this = nc_kbf16((float)*this * v); }
  __device__ nc_kbf16& operator/=(float v) { return *this = nc_kbf16((float)*this / v); }
  __device__ nc_kbf16 operator-() const { nc_kbf16 h; h.x = x ^ 0x8000; return h; }
  __device__ nc_kbf16 operator+() const { return *this; }
};`);
  if (!fp16) parts.push('typedef nc_kbf16 __nv_bfloat16; typedef nc_kbf16 nv_bfloat16;');
  return parts.join('\n');
}

/**
 * Helpers available to user code of both forms, after PREAMBLE: <stdint.h> names, `half`
 * (`__half`) and `__nv_bfloat16` (`nv_bfloat16`) as storage types converting to and from float
 * (those names left out when `userPreamble` names cuda_fp16.h or cuda_bf16.h), `pycuda::complex<R>` (our
 * nc_complex) with real/imag/conj/abs/norm/arg and mixed real-complex arithmetic, and `nc_raw<T>`
 * (CuPy raw arguments: `a[j]`, `a.size()`). Definitions that a user #include could clash with
 * are left out when `userPreamble` includes headers.
 */
export function helpers(userPreamble: string): string {
  const includes = /^\s*#\s*include/m.test(userPreamble);
  const parts: string[] = [];
  if (!includes) {
    parts.push(`typedef signed char int8_t; typedef unsigned char uint8_t; typedef short int16_t; typedef unsigned short uint16_t;
typedef int int32_t; typedef unsigned int uint32_t; typedef long long int64_t; typedef unsigned long long uint64_t;`);
  }
  parts.push(floatTypes(userPreamble));
  parts.push(String.raw`namespace pycuda { template <typename R> using complex = nc_complex<R>; }
template <typename R> __device__ __forceinline__ R real(nc_complex<R> a) { return a.re; }
template <typename R> __device__ __forceinline__ R imag(nc_complex<R> a) { return a.im; }
template <typename R> __device__ __forceinline__ nc_complex<R> conj(nc_complex<R> a) { return nc_complex<R>(a.re, -a.im); }
template <typename R> __device__ __forceinline__ R norm(nc_complex<R> a) { return a.re * a.re + a.im * a.im; }
template <typename R> __device__ __forceinline__ R abs(nc_complex<R> a) { return hypot(a.re, a.im); }
template <typename R> __device__ __forceinline__ R arg(nc_complex<R> a) { return atan2(a.im, a.re); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator+(R a, nc_complex<R> b) { return nc_complex<R>(a) + b; }
template <typename R> __device__ __forceinline__ nc_complex<R> operator+(nc_complex<R> a, R b) { return a + nc_complex<R>(b); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator-(R a, nc_complex<R> b) { return nc_complex<R>(a) - b; }
template <typename R> __device__ __forceinline__ nc_complex<R> operator-(nc_complex<R> a, R b) { return a - nc_complex<R>(b); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator*(R a, nc_complex<R> b) { return nc_complex<R>(a * b.re, a * b.im); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator*(nc_complex<R> a, R b) { return nc_complex<R>(a.re * b, a.im * b); }
template <typename R> __device__ __forceinline__ nc_complex<R> operator/(R a, nc_complex<R> b) { return nc_complex<R>(a) / b; }
template <typename R> __device__ __forceinline__ nc_complex<R> operator/(nc_complex<R> a, R b) { return nc_complex<R>(a.re / b, a.im / b); }
template <typename R> __device__ __forceinline__ nc_complex<R>& operator+=(nc_complex<R>& a, nc_complex<R> b) { return a = a + b; }
template <typename R> __device__ __forceinline__ nc_complex<R>& operator-=(nc_complex<R>& a, nc_complex<R> b) { return a = a - b; }
template <typename R> __device__ __forceinline__ nc_complex<R>& operator*=(nc_complex<R>& a, nc_complex<R> b) { return a = a * b; }
template <typename R> __device__ __forceinline__ nc_complex<R>& operator/=(nc_complex<R>& a, nc_complex<R> b) { return a = a / b; }
template <typename T> struct nc_raw {
  T *p; unsigned long long n;
  __device__ T& operator[](long long j) const { return p[j]; }
  __device__ unsigned long long size() const { return n; }
};`);
  return parts.join('\n');
}

/**
 * How a PyCUDA-form kernel is launched: 32-bit or 64-bit index, over the whole array or over a
 * range (start, stop, step; `count` indices, computed on the host). `unrolled`/`unrolledWide`:
 * the whole array, UNROLL elements a thread with `__restrict__` pointers, used when the arrays do
 * not overlap and the code does not use the loop's locals (see `unrollable`).
 */
export type LoopMode = 'narrow' | 'wide' | 'range' | 'rangeWide' | 'unrolled' | 'unrolledWide';

/** Elements a thread handles per step of the unrolled loop. */
export const UNROLL = 4;

/**
 * Whether a kernel may use the unrolled loop: no loop prep or after-loop code (they may read `i`
 * or the locals) and an operation that names none of PyCUDA's loop locals or the thread indices.
 */
export function unrollable(operation: string, o: LoopSource): boolean {
  if ((o.loopPrep ?? '').trim() !== '' || (o.afterLoop ?? '').trim() !== '') return false;
  return !/\b(tid|total_threads|cta_start|threadIdx|blockIdx|blockDim|gridDim|__syncthreads\w*|goto)\b/.test(stripComments(operation));
}

/** Options of the PyCUDA form that shape the source. */
export interface LoopSource {
  preamble?: string;
  loopPrep?: string;
  afterLoop?: string;
}

/**
 * CUDA source of a PyCUDA ElementwiseKernel (no headers): a grid-stride loop over `i` with
 * PyCUDA's locals (`tid`, `total_threads`, `cta_start`), `n` the array size (and `start`, `stop`,
 * `step` in range modes); user code is kept on lines of its own so NVRTC errors point at it.
 * Kernel names: `name`, `name_w` (64-bit index), `name_range`, `name_range_w`.
 * 32-bit indexing keeps both the kernel and its compile fast (ptxas takes twice as long on
 * 64-bit loops).
 */
export function loopKernelSource(args: CArg[], operation: string, name: string, o: LoopSource, mode: LoopMode):
  { source: string; name: string } {
  const decls = args.map((a) => `${a.isConst ? 'const ' : ''}${a.ctype} ${a.pointer ? '*' : ''}${a.name}`);
  const wide = mode === 'wide' || mode === 'rangeWide' || mode === 'unrolledWide';
  const range = mode === 'range' || mode === 'rangeWide';
  const u = wide ? 'unsigned long long' : 'unsigned int';
  if (mode === 'unrolled' || mode === 'unrolledWide') return unrolledSource(args, operation, name, o, u);
  const kname = `${name}${range ? '_range' : ''}${wide ? '_w' : ''}`;
  const s = wide ? 'long long' : 'int';
  const extra = range ? [`${s} start`, `${s} stop`, `${s} step`, `${u} count`, `${u} n`] : [`${u} n`];
  const loop = range
    ? `for (${u} __ek_k = cta_start + tid; __ek_k < count; __ek_k += total_threads) {\n  const ${s} i = start + (${s})__ek_k * step;`
    : `${u} i;\n  for (i = cta_start + tid; i < n; i += total_threads) {`;
  const source = `${PREAMBLE}
${helpers(o.preamble ?? '')}
${o.preamble ?? ''}
extern "C" __global__ void ${kname}(${[...decls, ...extra].join(', ')}) {
  const unsigned tid = threadIdx.x;
  const ${u} total_threads = (${u})gridDim.x * blockDim.x;
  const ${u} cta_start = (${u})blockDim.x * blockIdx.x;
  (void)n;${range ? ' (void)stop;' : ''}
${o.loopPrep ?? ''}
  ;
  ${loop}
${operation}
  ;
  }
${o.afterLoop ?? ''}
  ;
}
`;
  return { source, name: kname };
}

/**
 * The unrolled loop: each thread takes UNROLL elements a block apart per step (the user's code
 * twice: unguarded for whole steps, so all loads can go first, guarded for the last). The pointers are
 * `__restrict__` (the caller checked that no written array overlaps another), so the compiler may
 * issue every load of a step before its stores: one element a thread left a Hopper's memory
 * system short of requests in flight (ElementwiseKernel axpy 0.79x torch on an H200).
 */
function unrolledSource(args: CArg[], operation: string, name: string, o: LoopSource, u: string): { source: string; name: string } {
  const decls = args.map((a) => `${a.isConst ? 'const ' : ''}${a.ctype} ${a.pointer ? '*__restrict__ ' : ''}${a.name}`);
  const kname = `${name}_u${u === 'unsigned int' ? '' : '_w'}`;
  const source = `${PREAMBLE}
${helpers(o.preamble ?? '')}
${o.preamble ?? ''}
extern "C" __global__ void ${kname}(${[...decls, `${u} n`].join(', ')}) {
  const ${u} __ek_stride = (${u})gridDim.x * blockDim.x * ${UNROLL}u;
  for (${u} __ek_base = (${u})blockDim.x * blockIdx.x * ${UNROLL}u + threadIdx.x; __ek_base < n; __ek_base += __ek_stride) {
  if (__ek_base + (${u})(${UNROLL - 1}u * blockDim.x) < n) {
#pragma unroll
  for (unsigned __ek_u = 0; __ek_u < ${UNROLL}u; __ek_u++) {
  ${u} i = __ek_base + (${u})__ek_u * blockDim.x;
  {
${operation}
  ;
  }
  }
  } else {
  for (unsigned __ek_u = 0; __ek_u < ${UNROLL}u; __ek_u++) {
  ${u} i = __ek_base + (${u})__ek_u * blockDim.x;
  if (i < n) {
${operation}
  ;
  }
  }
  }
  }
}
`;
  return { source, name: kname };
}

/** One parameter of the CuPy form after type resolution. */
export interface ResolvedParam {
  name: string;
  raw: boolean;
  /** The dtype the user's code sees (compute type for non-raw). */
  type: DType;
  /** Engine slot: input index (x<k>) for non-raw inputs and read outputs; raw: the pointer scalar's slot. */
  slot: number;
  /** Raw only: the slot of the size scalar. */
  sizeSlot?: number;
}

/** The C type the user's code sees for a non-raw value of dtype `d` (its compute type). */
export function userCType(d: DType): string {
  switch (d.name) {
    case 'float16': case 'bfloat16': return 'float';
    case 'complex64': return 'nc_c64_t';
    case 'complex128': return 'nc_c128_t';
    default: return d.ctype;
  }
}

/** Element type of a raw array. */
export function rawCType(d: DType): string {
  switch (d.name) {
    case 'float16': return 'nc_khalf';
    case 'bfloat16': return 'nc_kbf16';
    case 'complex64': return 'nc_complex<float>';
    case 'complex128': return 'nc_complex<double>';
    default: return d.ctype;
  }
}

/**
 * Engine body for a CuPy operation: copies x<k> into private temporaries, then in an inner
 * block declares the placeholder typedefs and the user's names, runs `operation`, and copies the
 * outputs back to r<k> (names such as `x0` in user code cannot clash with the engine's).
 */
export function genericBody(ins: ResolvedParam[], outs: Array<ResolvedParam & { read: boolean }>, typedefs: Map<string, DType>,
  operation: string): string {
  const lines: string[] = [];
  const slots: number[] = [];
  for (const p of ins) slots.push(...(p.raw ? [p.slot, p.sizeSlot!] : [p.slot]));
  for (const o of outs) slots.push(...(o.raw ? [o.slot, o.sizeSlot!] : o.read ? [o.slot] : []));
  for (const s of slots) lines.push(`const auto __ek_x${s} = x${s};`);
  outs.forEach((o, k) => { if (!o.raw) lines.push(`${userCType(o.type)} __ek_r${k};`); });
  lines.push('{');
  for (const [t, d] of typedefs) lines.push(`typedef ${userCType(d)} ${t};`);
  const raw = (p: ResolvedParam, isConst: boolean) => {
    const et = `${isConst ? 'const ' : ''}${rawCType(p.type)}`;
    return `const nc_raw<${et}> ${p.name} = { reinterpret_cast<${et}*>(__ek_x${p.slot}), __ek_x${p.sizeSlot} };`;
  };
  for (const p of ins) lines.push(p.raw ? raw(p, true) : `const ${userCType(p.type)} ${p.name} = __ek_x${p.slot};`);
  for (const o of outs) {
    if (o.raw) lines.push(raw(o, false));
    else lines.push(`${userCType(o.type)} ${o.name}${o.read ? ` = __ek_x${o.slot}` : ` = (${userCType(o.type)})0`};`);
  }
  lines.push(`{\n${operation}\n;}`);
  outs.forEach((o, k) => { if (!o.raw) lines.push(`__ek_r${k} = ${o.name};`); });
  lines.push('}');
  let r = 0;
  outs.forEach((o, k) => { if (!o.raw) lines.push(`r${r++} = __ek_r${k};`); });
  return lines.join('\n');
}

export { IDENT };
