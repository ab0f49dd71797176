/**
 * Quantiles (median, quantile, percentile and their NaN-skipping forms) from ordered data: one
 * thread an output reads the one or two order statistics it needs and interpolates.
 *
 * The order statistics come either from rows sorted ascending (NaNs last; `ranks` null, a row is
 * `len` elements), or, for long rows, from a radix selection of just the ranks needed
 * (engine/select.ts): `pick` writes each selected rank's value into a row of R values, and
 * `ranks` lists those R positions (ascending) for the quantile kernel to look its positions up in.
 *
 * Methods (NumPy's names and formulas; `m` the row's element count, NaNs left out with `skipnan`,
 * `v` the position, 0-based):
 * - 0 linear: v = (m − 1)·q; 6, the other continuous methods of Hyndman and Fan: v = m·q + α +
 *   q·(1 − α − β) − 1 (α, β as NumPy gives them); both take the elements at floor(v) and floor(v)
 *   + 1, clipped to the row, and NumPy's two-sided lerp between them;
 * - 1 lower, 2 higher, 3 nearest (round half to even): one element, returned as it is;
 * - 4 midpoint: half way between floor and ceil of (m − 1)·q;
 * - 5 median: the middle element, or the mean of the two middle ones (a sum and a division, as
 *   NumPy's median computes its mean).
 * A position that falls on an element (or is clipped) returns that element without arithmetic.
 * A row holding a NaN gives NaN (without `skipnan`); so does a row of NaNs only (with it).
 */
import { DType } from '../../base/dtype';
import { gridLoop, tag, transforms, uintC } from './sort_keys';
import { SELECT_STATE_WORDS, selectKeyBytes } from './select';

/** The method codes of the quantile kernel. */
export const QUANTILE_METHODS = { linear: 0, lower: 1, higher: 2, nearest: 3, midpoint: 4, median: 5, continuous: 6 } as const;

/**
 * The quantile kernel of input `dt` writing `out` (dt itself, or float64 for an integer or bool
 * input interpolated): (s, q, q0, out, len, rows, n, method, alpha, beta, skipnan, ranks, R); outputs
 * i = qi·rows + row; q null: every output's q is q0.
 */
export function quantileKernel(dt: DType, out: DType): { source: string; name: string } {
  const name = `nc_quantile_${tag(dt)}_${tag(out)}`;
  const A = dt.storageC;
  const O = out.storageC;
  const W = dt.kind === 'f' ? dt.computeC : 'double'; // float16, bfloat16 interpolate in float
  const float = dt.kind === 'f';
  const copy = O === A ? 'a' : `NC_STORE(${O}, nc_load(a))`;
  // Each operation rounded on its own (no contraction into an FMA), as NumPy computes.
  const [add, sub, mul] = W === 'double' ? ['__dadd_rn', '__dsub_rn', '__dmul_rn'] : ['__fadd_rn', '__fsub_rn', '__fmul_rn'];
  const source = `
namespace ${name}_ns {
// Element idx of the row: from the sorted row, or from the selected ranks (idx is among them).
__device__ __forceinline__ ${A} at(const ${A}* __restrict__ s, unsigned long long row, long long len, long long idx,
    const long long* __restrict__ ranks, int R) {
  if (!ranks) return s[row * (unsigned long long)len + idx];
  int j = 0;
  while (j < R - 1 && ranks[j] != idx) j++;
  return s[row * (unsigned long long)R + j];
}
}
extern "C" __global__ void ${name}(const ${A}* __restrict__ s, const double* __restrict__ q, const double q0, ${O}* __restrict__ out,
    const long long len, const unsigned long long rows, const unsigned long long n, const int method,
    const double alpha, const double beta, const int skipnan, const long long* __restrict__ ranks, const int R) {
  using namespace ${name}_ns;
  ${gridLoop('n')} {
    const unsigned long long row = i % rows;
    long long m = len;
${float ? `    bool nan;
    if (skipnan) {  // NaNs sort last: m is the first NaN's position
      long long lo = 0, hi = len;
      while (lo < hi) {
        const long long mid = (lo + hi) >> 1;
        if (nc_isnan(nc_load(at(s, row, len, mid, ranks, R)))) hi = mid; else lo = mid + 1;
      }
      m = lo;
      nan = m == 0;
    } else {
      nan = nc_isnan(nc_load(at(s, row, len, len - 1, ranks, R)));
    }
    if (nan) { out[i] = NC_STORE(${O}, (${W})__longlong_as_double(0x7ff8000000000000ULL)); continue; }` : '    (void)skipnan;'}
    // Positions in round-to-nearest steps without contraction: the host finds the same ones.
    const double p = q ? q[i / rows] : q0, last = (double)(m - 1), lp = __dmul_rn(last, p);
    long long lo, hi;
    double g = 0;
    if (method == 1) lo = hi = (long long)floor(lp);
    else if (method == 2) lo = hi = (long long)ceil(lp);
    else if (method == 3) lo = hi = (long long)rint(lp);
    else if (method == 4) { lo = (long long)floor(lp); hi = (long long)ceil(lp); g = lo == hi ? 0.0 : 0.5; }
    else if (method == 5) { lo = (m - 1) / 2; hi = m / 2; }
    else {
      const double v = method == 0 ? lp
        : __dsub_rn(__dadd_rn(__dmul_rn((double)m, p), __dadd_rn(alpha, __dmul_rn(p, __dsub_rn(__dsub_rn(1.0, alpha), beta)))), 1.0);
      if (v >= last) lo = hi = m - 1;
      else if (v < 0) lo = hi = 0;
      else { lo = (long long)floor(v); hi = lo + 1; g = v - (double)lo; }
    }
    const ${A} a = at(s, row, len, lo, ranks, R);
    if (lo == hi || (g == 0.0 && method != 5)) { out[i] = ${copy}; continue; }
    const ${W} x = NC_TO(${W}, nc_load(a)), y = NC_TO(${W}, nc_load(at(s, row, len, hi, ranks, R)));
    ${W} r;
    if (method == 5) r = ${mul}(${add}(x, y), (${W})0.5);
    else {  // NumPy's lerp: from the nearer end
      const ${W} t = (${W})g, d = ${sub}(y, x);
      r = t >= (${W})0.5 ? ${sub}(y, ${mul}(d, ${sub}((${W})1, t))) : ${add}(x, ${mul}(d, t));
    }
    out[i] = NC_STORE(${O}, r);
  }
}`;
  return { source, name };
}

/**
 * The pick kernel of `dt`: after a selection's digit passes, each row's k-th key (its state's
 * prefix) as the element's bits into column j of `out` (rows × R): (state, out, rows, R, j).
 */
export function selectPickKernel(dt: DType): { source: string; name: string } {
  const kb = selectKeyBytes(dt);
  const K = uintC(kb);
  const name = `nc_select_pick_${tag(dt)}`;
  const source = `
namespace ${name}_ns {${transforms(dt, kb)}
}
extern "C" __global__ void ${name}(const unsigned int* __restrict__ state, void* __restrict__ out_,
    const unsigned long long rows, const int R, const int j) {
  using namespace ${name}_ns;
  ${K}* const out = reinterpret_cast<${K}*>(out_);
  ${gridLoop('rows')} {
    const unsigned int* st = state + i * ${SELECT_STATE_WORDS}u;
    const unsigned long long key = (unsigned long long)st[0] | ((unsigned long long)st[1] << 32);
    out[i * (unsigned long long)R + j] = nc_untf((${K})key);
  }
}`;
  return { source, name };
}

/** The quantile family's kernels of the real dtype `dt` (codegen tests). */
export function quantileKernelsFor(dt: DType, f64: DType): Array<{ source: string; name: string }> {
  const ks = [quantileKernel(dt, dt), selectPickKernel(dt)];
  if (dt.kind !== 'f') ks.push(quantileKernel(dt, f64));
  return ks;
}
