/**
 * Layer 20: kernel signature parsing (no GPU): the parameter kinds launch() packs, from CUDA
 * source with comments, templates, attributes and several kernels.
 */
import { parseKernelSignatures } from '../lib/cuda/launch';

describe('parseKernelSignatures', () => {
  const kinds = (src: string, name: string) => parseKernelSignatures(src).get(name)!.map((p) =>
    p.kind === 'ptr' ? `ptr ${p.name}` : p.kind === 'scalar' ? `${p.dtype.name} ${p.name}` : `?${p.ctype} ${p.name}`);

  test('pointers with const/__restrict__, scalars of every C spelling', () => {
    const src = `__global__ void k(const float * __restrict__ x, float* y, int *z, volatile double *w,
      int n, unsigned int u, size_t s, __half h, char c, bool b, long long ll, unsigned long long ull,
      short sh, double d, int64_t i64, uint8_t u8, int a[]) {}`;
    expect(kinds(src, 'k')).toEqual(['ptr x', 'ptr y', 'ptr z', 'ptr w', 'int32 n', 'uint32 u', 'uint64 s',
      'float16 h', 'int8 c', 'bool b', 'int64 ll', 'uint64 ull', 'int16 sh', 'float64 d', 'int64 i64',
      'uint8 u8', 'ptr a']);
  });

  test('declarators with parentheses and template arguments with commas are one parameter each', () => {
    // Before: the list ended at the first ')', so `float (*x)[4], int n` was one parameter.
    const src = `__global__ void k(float (*x)[4], int n, void (*f)(int, float), Pair<int, 2> p, float y[8][4], double d) {}
      __global__ void after(int m) {}`;
    expect(kinds(src, 'k')).toEqual(['ptr x', 'int32 n', 'ptr f', '?Pair<int, 2> p', 'ptr y', 'float64 d']);
    expect(kinds(src, 'after')).toEqual(['int32 m']);
  });

  test('comments are ignored, inside and outside parameter lists', () => {
    const src = `/* __global__ void ghost(int a) */
      // __global__ void ghost2(float b)
      __global__ void k(float *out /* result */, // first
                        int n) { /* body */ }`;
    const m = parseKernelSignatures(src);
    expect([...m.keys()]).toEqual(['k']);
    expect(kinds(src, 'k')).toEqual(['ptr out', 'int32 n']);
  });

  test('unnamed parameters, void and empty lists', () => {
    const src = `__global__ void u(float *, int, const double*) {}
      __global__ void v(void) {}
      __global__ void e() {}`;
    expect(kinds(src, 'u')).toEqual(['ptr #0', 'int32 #1', 'ptr #2']);
    expect(kinds(src, 'v')).toEqual([]);
    expect(kinds(src, 'e')).toEqual([]);
  });

  // Known bug (see report): an unnamed multi-word type loses its last word as the "name".
  test('unnamed multi-word types keep their type', () => {
    expect(kinds('__global__ void k(unsigned char, unsigned short) {}', 'k')).toEqual(['uint8 #0', 'uint16 #1']);
  });

  test('unknown types (structs, vector types) are kept as unknown with their C type', () => {
    const src = 'struct P { float x; }; __global__ void k(struct P p, float2 v, MyType *q, P r) {}';
    expect(kinds(src, 'k')).toEqual(['?P p', '?float2 v', 'ptr q', '?P r']);
  });

  test('__launch_bounds__ on either side of void, several kernels, templates', () => {
    const src = `__global__ void __launch_bounds__(256) a(float *x) {}
      __global__ __launch_bounds__(128, 2) void b(int n) {}
      template <typename T> __global__ void t(T *x, T y) {}
      extern "C" __global__ void c(double d) {}
      __device__ void notAKernel(int z) {}`;
    const m = parseKernelSignatures(src);
    expect([...m.keys()].sort()).toEqual(['a', 'b', 'c', 't']);
    expect(kinds(src, 'a')).toEqual(['ptr x']);
    expect(kinds(src, 'b')).toEqual(['int32 n']);
    expect(kinds(src, 't')).toEqual(['ptr x', '?T y']);
    expect(kinds(src, 'c')).toEqual(['float64 d']);
  });
});
