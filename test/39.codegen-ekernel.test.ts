/**
 * ElementwiseKernel code generation without a GPU: argument parsing, every dtype's PyCUDA-form
 * kernel and the CuPy form's engine variants compile with NVRTC (sm_75 PTX, sm_90 CUBIN), user
 * errors come back as NvrtcErrors showing the numbered generated source, and identical kernels
 * compile once per process and once per machine (disk cache). Compile times are printed, not
 * asserted.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { DTYPES, ElementwiseKernel, NvrtcError, compiler } from '../lib';
import { native } from '../lib/cuda/native';
import { Variant, elementwiseSource } from '../lib/engine/templates/elementwise';
import { LoopMode, parseCArgs } from '../lib/engine/templates/elementwise_kernel';
import { expectCode } from './helpers';

const DIST = path.join(__dirname, '..', 'dist');
const MODES: LoopMode[] = ['narrow', 'wide', 'range', 'rangeWide'];

/** PyCUDA spellings of each dtype. */
const C_NAMES: Record<string, string> = {
  bool: 'bool', int8: 'char', uint8: 'unsigned char', int16: 'short', uint16: 'unsigned short', int32: 'int',
  uint32: 'unsigned int', int64: 'long long', uint64: 'unsigned long long', float16: 'half', bfloat16: '__nv_bfloat16', float32: 'float',
  float64: 'double', complex64: 'pycuda::complex<float>', complex128: 'pycuda::complex<double>',
};

function build(source: string, name: string): void {
  const ptx = Buffer.from(compiler.compile(source, { arch: 'sm_75', noExternC: true, options: ['--std=c++17'], target: 'ptx' }).image).toString('utf8');
  expect(ptx).toContain(`.entry ${name}(`);
  const cubin = Buffer.from(compiler.compile(source, { arch: 'sm_90', noExternC: true, options: ['--std=c++17'] }).image);
  expect(cubin.includes(Buffer.from(`${name}\0`))).toBe(true);
}

describe('PyCUDA argument lists', () => {
  test('every C spelling maps to its dtype; pointers are arrays', () => {
    for (const [d, c] of Object.entries(C_NAMES)) {
      const [a, x] = parseCArgs(`${c} a, const ${c} * __restrict__ x`);
      expect([a.name, a.dtype.name, a.pointer, x.name, x.dtype.name, x.pointer, x.isConst]).toEqual(['a', d, false, 'x', d, true, true]);
    }
    const more = parseCArgs('signed char a, uint8_t *b, int16_t c, unsigned d, long e, size_t *f, __half g, float2 *h, double2 k, float32 *m, complex128 p, float v[]');
    expect(more.map((p) => p.dtype.name)).toEqual(['int8', 'uint8', 'int16', 'uint32', 'int64', 'uint64', 'float16', 'complex64',
      'complex128', 'float32', 'complex128', 'float32']);
    expect(more[11].pointer).toBe(true);
    // pycuda::complex<float> is aligned like float, float2 like the pair.
    expect(parseCArgs('pycuda::complex<float> a, float2 b').map((p) => p.align)).toEqual([4, 8]);
    expect(parseCArgs('')).toEqual([]);
  });

  test('bad declarations are TypeErrors naming the declaration', () => {
    expect(expectCode(() => parseCArgs('float a, foo *x'), TypeError, 'ERR_INVALID_ARG_VALUE').message).toContain('foo *x');
    expectCode(() => parseCArgs('float **x'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => parseCArgs('float *x, float *x'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => parseCArgs('float *i'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => parseCArgs('float'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => new ElementwiseKernel('float *x', 'x[i] = 0', 'bad name'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => new ElementwiseKernel('float *x', 3 as unknown as string), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new ElementwiseKernel('float *x', 'x[i] = 0', 'k', { options: 'x' as unknown as string[] }), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('the kernel is callable, with its arguments and name', () => {
    const k = new ElementwiseKernel('float a, float *x', 'x[i] *= a', 'scale');
    expect(typeof k).toBe('function');
    expect(k).toBeInstanceOf(ElementwiseKernel);
    expect(k.name).toBe('scale');
    expect(k.arguments).toEqual([{ name: 'a', dtype: 'float32', pointer: false }, { name: 'x', dtype: 'float32', pointer: true }]);
  });
});

describe('PyCUDA-form kernels compile (NVRTC, no GPU)', () => {
  test.each(Object.entries(C_NAMES))('%s: linear combination, every loop mode', (d, c) => {
    const k = new ElementwiseKernel(`${c} a, const ${c} *x, ${c} b, const ${c} *y, ${c} *z`, 'z[i] = a*x[i] + b*y[i]', `lin_${d}`);
    for (const mode of MODES) {
      const { source, name } = k.generatedSource(mode);
      expect(source).not.toMatch(/#\s*include/);
      build(source, name);
    }
  });

  test('preamble functions, loopPrep/afterLoop, half and complex operations, <stdint> names', () => {
    const k = new ElementwiseKernel(
      'half *h, pycuda::complex<float> *c, float2 *f2, int64_t *s, uint8_t *u, double w',
      `h[i] += sq(h[i]); h[i] = h[i] > 1.0f ? h[i] * 2 : (float)-h[i]; h[i] -= 1; h[i] *= w; h[i] /= 2.0;
       c[i] = 2.0f * conj(c[i]) + c[i] / 3.0f - pycuda::complex<float>(real(c[i]), imag(c[i])) * c[i];
       c[i] += c[i]; c[i] *= pycuda::complex<float>(abs(c[i]), arg(c[i]) + norm(c[i]));
       f2[i] = make_float2(f2[i].y, f2[i].x); acc += s[i]; u[i] = (uint8_t)(u[i] + 1);`,
      'mixed',
      { preamble: '__device__ float sq(float v) { return v * v; }', loopPrep: 'long long acc = 0;', afterLoop: 'if (acc == 42) s[0] = acc;' },
    );
    for (const mode of MODES) {
      const { source, name } = k.generatedSource(mode);
      build(source, name);
    }
  });

  test('bfloat16: nv_bfloat16/bfloat16 spellings, arithmetic, conversions from every C type, raw use', () => {
    expect(parseCArgs('nv_bfloat16 a, bfloat16 *b').map((p) => [p.dtype.name, p.ctype])).toEqual([['bfloat16', 'nv_bfloat16'],
      ['bfloat16', '__nv_bfloat16']]);
    const k = new ElementwiseKernel(
      'nv_bfloat16 *h, const __nv_bfloat16 *x, bfloat16 w, const double *d, const long long *l, const int *n32, const half *hf',
      `h[i] += x[i]; h[i] = h[i] > 1.0f ? h[i] * 2 : (float)-h[i]; h[i] -= 1; h[i] *= w; h[i] /= 2.0;
       h[i] = d[i]; h[i] = l[i]; h[i] = n32[i]; h[i] = hf[i]; h[i] = (unsigned long long)l[i]; h[i] = -x[i] + +x[i];`,
      'bf16ops');
    for (const mode of MODES) {
      const { source, name } = k.generatedSource(mode);
      build(source, name);
    }
  });

  test('a preamble that includes cuda_bf16.h gets the real __nv_bfloat16 (no clash)', () => {
    const k = new ElementwiseKernel('__nv_bfloat16 *h, half *g', 'h[i] = __float2bfloat16(__bfloat162float(h[i]) * 2.0f); g[i] = __float2half(1.0f)',
      'bf16h', { preamble: '#include <cuda_bf16.h>' });
    const { source, name } = k.generatedSource();
    build(source, name);
  });

  test('a preamble that includes cuda_fp16.h gets the real __half (no clash)', () => {
    const k = new ElementwiseKernel('__half *h', 'h[i] = __hadd(h[i], h[i])', 'fp16', { preamble: '#include <cuda_fp16.h>' });
    const { source, name } = k.generatedSource();
    build(source, name);
  });
});

const VARIANTS: Variant[] = [
  { kind: 'contiguous', e: 4, wide: false },
  { kind: 'contiguous', e: 2, wide: true },
  { kind: 'strided', e: 4, wide: false, ndim: 2, inner: [] },
  { kind: 'strided', e: 1, wide: true, ndim: 3, inner: [] },
  { kind: 'tiled', e: 1, wide: false, ndim: 2, tiled: [] },
];

function variantsFor(arrays: number, inputs: number): Variant[] {
  return VARIANTS.map((v) => v.kind === 'strided' ? { ...v, inner: Array.from({ length: arrays }, (_, j) => (['unit', 'zero', 'any'] as const)[j % 3]) }
    : v.kind === 'tiled' ? { ...v, tiled: Array.from({ length: inputs }, (_, j) => j % 2 === 0) } : v);
}

describe('CuPy-form kernels compile (every engine variant)', () => {
  const k = ElementwiseKernel.generic('T x, T y, raw T a, U s', 'T z, float64 w',
    'z = x * y + a[i % a.size()] + (T)s; w += (double)real_of(z); n == 0 ? (void)0 : (void)i', 'gen',
    { preamble: 'template <typename V> __device__ double real_of(V v) { return (double)v; }\n' +
      'template <typename R> __device__ double real_of(nc_complex<R> v) { return (double)v.re; }' });
  test.each(Object.keys(DTYPES))('%s', (d) => {
    // x, y arrays; a raw (pointer, size); s a scalar of another type; z and w are read (given outputs are loaded).
    const spec = k.specFor([d, d, d, null], [d, 'float64'], [null, null, null, 'int32']);
    expect(spec.inputs.map((x) => x.scalar)).toEqual([false, false, true, true, true, false, false]);
    expect(spec.inputs[4].compute).toBe(DTYPES.int32);
    for (const v of variantsFor(spec.outputs.length + 4, 4)) {
      const { source, name } = elementwiseSource(spec, v);
      build(source, name);
    }
  });

  test('raw outputs (atomics through a[j]) and several outputs', () => {
    const h = ElementwiseKernel.generic('T x', 'raw T hist, T y, T z', 'atomicAdd(&hist[(int)x % hist.size()], (T)1); y = x; z = -x', 'hist');
    const spec = h.specFor(['float32'], ['float32', 'float32', 'float32']);
    expect(spec.outputs).toHaveLength(2);
    for (const v of variantsFor(3, 1)) build(elementwiseSource(spec, v).source, elementwiseSource(spec, v).name);
  });

  test('parameter errors', () => {
    expectCode(() => ElementwiseKernel.generic('T x, T x', 'T z', 'z = x'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => ElementwiseKernel.generic('T i', 'T z', 'z = i'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => ElementwiseKernel.generic('T x', '', 'z = x'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => ElementwiseKernel.generic('T x', 'T', 'z = x'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => ElementwiseKernel.generic('foo* x', 'T z', 'z = x'), TypeError, 'ERR_INVALID_ARG_VALUE');
    const k = ElementwiseKernel.generic('T x, T y', 'U z', 'z = x + y');
    // U cannot be inferred from the inputs: an error unless the output is given.
    expectCode(() => k.specFor(['float32', 'float32'], []), TypeError, 'ERR_INVALID_DTYPE');
    expectCode(() => k.specFor(['float32', 'int32'], ['float32']), TypeError, 'ERR_INVALID_DTYPE');
    const typed = ElementwiseKernel.generic('int32 x', 'int32 z', 'z = x');
    expectCode(() => typed.specFor(['float32'], ['int32']), TypeError, 'ERR_INVALID_DTYPE');
    expect(typed.specFor(['int16'], ['int64']).inputs[0]).toMatchObject({ dtype: DTYPES.int16, compute: DTYPES.int32 });
  });
});

describe('user errors are NvrtcErrors that show the generated source', () => {
  function compileError(k: ElementwiseKernel): NvrtcError {
    const { source } = k.generatedSource();
    let caught: unknown;
    try {
      compiler.compile(source, { arch: 'sm_90', noExternC: true, options: ['--std=c++17'] });
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(NvrtcError);
    return caught as NvrtcError;
  }
  test('syntax error: the line of the operation, numbered and marked', () => {
    const e = compileError(new ElementwiseKernel('float a, float *x, float *z', 'z[i] = a * x[i] +;', 'syn'));
    expect(e.code).toBe('NVRTC_ERROR_COMPILATION');
    expect(e.message).toMatch(/>\s*\d+ \| z\[i\] = a \* x\[i\] \+;/);
    expect(e.message).toMatch(/expected an expression/);
  });
  test('unknown name', () => {
    const e = compileError(new ElementwiseKernel('float *x, float *z', 'z[i] = y[i];', 'unk'));
    expect(e.message).toMatch(/identifier "y" is undefined/);
    expect(e.message).toMatch(/>\s*\d+ \| z\[i\] = y\[i\];/);
  });
});

describe('compile once per process, once per machine', () => {
  test('identical kernels compile once in a process (counting NVRTC calls)', () => {
    const spy = jest.spyOn(native, 'compile');
    try {
      const src = () => new ElementwiseKernel('float *x', `x[i] = ${process.pid}.5f + ${Date.now()}`, 'once').generatedSource().source;
      const s = src();
      for (let r = 0; r < 3; r++) compiler.compile(s, { arch: 'sm_90', noExternC: true, options: ['--std=c++17'], cacheDir: os.tmpdir() + '/nodecuda-none-' + process.pid });
      expect(spy).toHaveBeenCalledTimes(1);
    } finally {
      spy.mockRestore();
      fs.rmSync(os.tmpdir() + '/nodecuda-none-' + process.pid, { recursive: true, force: true });
    }
  });

  test('a new process reads the disk cache instead of compiling (timings printed)', () => {
    if (!fs.existsSync(path.join(DIST, 'index.js'))) throw new Error('run "npm run build:ts" first (the children load dist/)');
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-ek-'));
    const script = `
      const cuda = require(${JSON.stringify(DIST)});
      const { native } = require(${JSON.stringify(path.join(DIST, 'cuda', 'native.js'))});
      let calls = 0; const real = native.compile; native.compile = (...a) => { calls++; return real(...a); };
      const opts = { arch: 'sm_90', noExternC: true, options: ['--std=c++17'], cacheDir: process.env.NC_DIR };
      let t = performance.now();
      cuda.compiler.compile('__global__ void warm_' + process.pid + '() {}', { arch: 'sm_90' }); // loads NVRTC
      const loadMs = performance.now() - t;
      const k = new cuda.ElementwiseKernel('float a, float *x, float b, float *y, float *z', 'z[i] = a*x[i] + b*y[i] + ' + process.env.NC_TAG, 'lin');
      const before = calls;
      t = performance.now(); cuda.compiler.compile(k.generatedSource().source, opts); const firstMs = performance.now() - t;
      t = performance.now(); cuda.compiler.compile(k.generatedSource().source, opts); const memMs = performance.now() - t;
      console.log(JSON.stringify({ calls: calls - before, loadMs, firstMs, memMs }));`;
    const tag = `${Date.now()}.0f`;
    const run = () => {
      const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, NC_DIR: dir, NC_TAG: tag }, encoding: 'utf8' });
      if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
      return JSON.parse(r.stdout.trim().split('\n').pop()!) as { calls: number; loadMs: number; firstMs: number; memMs: number };
    };
    try {
      const a = run();
      const b = run();
      expect(a.calls).toBe(1); // compiled by NVRTC
      expect(b.calls).toBe(0); // read from disk
      process.stdout.write(`[ElementwiseKernel compile] NVRTC load+first compile ${a.loadMs.toFixed(1)} ms; new kernel cold ${a.firstMs.toFixed(1)} ms; ` +
        `disk hit ${b.firstMs.toFixed(2)} ms; in-process hit ${a.memMs.toFixed(3)} ms\n`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
