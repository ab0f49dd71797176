/**
 * fft (cuFFT): loading, CufftError, argument errors and the host-side frequency helpers without a
 * GPU; on a GPU every transform against an O(n²) float64 DFT on the CPU (numpy.fft semantics):
 * dtypes, norms, sizes 1 2 7 16 17 100 1024, n/s crop and pad, axes (first, middle, last, several,
 * the strided, looped and transposed layouts), non-contiguous and empty input, round trips,
 * irfft with odd n, shifts, the plan cache and streams.
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import * as cuda from '../lib';
import { CufftError, GPUArray, driver, fft, gpuarray } from '../lib';
import type { DTypeName } from '../lib';
import { fftfreqHost, rfftfreqHost } from '../lib/fft/freq';
import { Exec, layouts, resolve, workDtype } from '../lib/fft/fft';
import { CUFFT_TYPE } from '../lib/cuda/cufft';
import { DTYPES } from '../lib/base/dtype';
import { describeGpu, expectCode } from './helpers';

const DIST = path.resolve(__dirname, '..', 'dist');

// ---- a host reference: complex arrays as (re, im, shape), DFT along one axis -----------------

interface H { re: Float64Array; im: Float64Array; shape: number[] }

const strides = (shape: number[]): number[] => shape.map((_, d) => shape.slice(d + 1).reduce((p, n) => p * n, 1));
const size = (shape: number[]): number => shape.reduce((p, n) => p * n, 1);

/** Applies f to every 1-D line along `axis`: f(lineRe, lineIm) → [re, im] of length `len`. */
function alongAxis(x: H, axis: number, len: number, f: (re: number[], im: number[]) => [number[], number[]]): H {
  const shape = [...x.shape];
  const n = shape[axis];
  shape[axis] = len;
  const out: H = { re: new Float64Array(size(shape)), im: new Float64Array(size(shape)), shape };
  const si = strides(x.shape), so = strides(shape);
  const outer = size(x.shape.slice(0, axis)), inner = size(x.shape.slice(axis + 1));
  for (let o = 0; o < outer; o++) {
    for (let i = 0; i < inner; i++) {
      const re: number[] = [], im: number[] = [];
      for (let j = 0; j < n; j++) { re.push(x.re[o * n * inner + j * si[axis] + i]); im.push(x.im[o * n * inner + j * si[axis] + i]); }
      const [r, m] = f(re, im);
      for (let j = 0; j < len; j++) {
        out.re[o * len * inner + j * so[axis] + i] = r[j];
        out.im[o * len * inner + j * so[axis] + i] = m[j];
      }
    }
  }
  return out;
}

const resize = (x: H, axis: number, n: number): H => alongAxis(x, axis, n, (re, im) =>
  [Array.from({ length: n }, (_, j) => re[j] ?? 0), Array.from({ length: n }, (_, j) => im[j] ?? 0)]);

/** Unnormalized DFT (sign -1) or inverse DFT (sign +1) of every line along `axis`. */
const dft = (x: H, axis: number, inverse: boolean): H => alongAxis(x, axis, x.shape[axis], (re, im) => {
  const n = re.length, r = new Array<number>(n).fill(0), m = new Array<number>(n).fill(0);
  for (let k = 0; k < n; k++) {
    for (let j = 0; j < n; j++) {
      const t = ((j * k) % n) * 2 * Math.PI / n * (inverse ? 1 : -1), c = Math.cos(t), s = Math.sin(t);
      r[k] += re[j] * c - im[j] * s;
      m[k] += re[j] * s + im[j] * c;
    }
  }
  return [r, m];
});

function scaled(x: H, norm: string | undefined, inverse: boolean, n: number): H {
  const f = norm === 'ortho' ? 1 / Math.sqrt(n) : (norm === 'forward') !== inverse ? 1 / n : 1;
  return { re: x.re.map((v) => v * f), im: x.im.map((v) => v * f), shape: x.shape };
}

/** numpy.fft.fftn / ifftn. */
function refC2C(x: H, axes: number[], s: number[], inverse: boolean, norm?: string): H {
  let y = x;
  axes.forEach((ax, i) => { y = dft(resize(y, ax, s[i]), ax, inverse); });
  return scaled(y, norm, inverse, size(s));
}

/** numpy.fft.rfftn: the full DFT, the last axis cut to n/2+1. */
function refR2C(x: H, axes: number[], s: number[], norm?: string): H {
  const y = refC2C(x, axes, s, false, norm), last = axes[axes.length - 1];
  return resize(y, last, Math.floor(s[s.length - 1] / 2) + 1);
}

/** numpy.fft.irfftn: ifft on the other axes, then the Hermitian extension's inverse (real part). */
function refC2R(x: H, axes: number[], s: number[], norm?: string): H {
  let y = x;
  axes.slice(0, -1).forEach((ax, i) => { y = dft(resize(y, ax, s[i]), ax, true); });
  const last = axes[axes.length - 1], n = s[s.length - 1], half = Math.floor(n / 2) + 1;
  y = alongAxis(resize(y, last, half), last, n, (re, im) => [
    Array.from({ length: n }, (_, k) => (k < half ? re[k] : re[n - k])),
    Array.from({ length: n }, (_, k) => (k < half ? im[k] : -im[n - k]))]);
  y = dft(y, last, true);
  return scaled({ re: y.re, im: new Float64Array(y.re.length), shape: y.shape }, norm, true, size(s));
}

// ---- GPU data ------------------------------------------------------------------------------------

/** Deterministic values in [-1, 1). */
function values(n: number, seed: number): number[] {
  let s = seed >>> 0 || 1;
  return Array.from({ length: n }, () => { s = (Math.imul(s, 1664525) + 1013904223) >>> 0; return s / 2 ** 31 - 1; });
}

const isComplex = (d: DTypeName): boolean => d.startsWith('complex');
const single = (d: DTypeName): boolean => d === 'float32' || d === 'complex64' || d === 'float16' || d === 'bfloat16';

/** A random array of dtype d and the same values as a host reference (rounded as d stores them). */
function make(d: DTypeName, shape: number[], seed: number): [GPUArray, H] {
  const n = size(shape), v = values(2 * n, seed);
  const re = v.slice(0, n).map((x) => (d.includes('int') ? Math.round(x * 50) : x));
  const im = isComplex(d) ? v.slice(n) : new Array<number>(n).fill(0);
  let a: GPUArray;
  if (isComplex(d)) {
    const Arr = d === 'complex64' ? Float32Array : Float64Array;
    const buf = new Arr(2 * n);
    re.forEach((x, i) => { buf[2 * i] = x; buf[2 * i + 1] = im[i]; });
    a = gpuarray.toGpu(buf, { dtype: d, shape });
  } else {
    a = gpuarray.toGpu(re, { dtype: d, shape });
  }
  const back = download(a); // the stored (rounded) values
  return [a, back];
}

/** A GPU array as a host reference (complex or real). */
function download(a: GPUArray): H {
  const n = a.size, h: H = { re: new Float64Array(n), im: new Float64Array(n), shape: [...a.shape] };
  const data = (a.dtype.kind === 'f' && a.dtype.bytes !== 2 || a.dtype.kind === 'c' ? a.get() : a.astype('float64').get()) as Float32Array | Float64Array;
  for (let i = 0; i < n; i++) {
    if (a.dtype.kind === 'c') { h.re[i] = data[2 * i]; h.im[i] = data[2 * i + 1]; } else h.re[i] = data[i];
  }
  return h;
}

/** Expects the GPU result to match the reference within the dtype's tolerance. */
function expectClose(got: GPUArray, want: H, dt: DTypeName, what: string): void {
  expect([what, [...got.shape]]).toEqual([what, want.shape]);
  expect([what, got.dtype.name]).toEqual([what, dt]);
  const g = download(got);
  let max = 0, err = 0;
  for (let i = 0; i < want.re.length; i++) {
    max = Math.max(max, Math.hypot(want.re[i], want.im[i]));
    err = Math.max(err, Math.hypot(g.re[i] - want.re[i], g.im[i] - want.im[i]));
  }
  const n = Math.max(2, size(want.shape));
  const tol = (single(dt) ? 1e-6 : 1e-13) * Math.log2(n) * (max + 1) * 4;
  if (!(err <= tol)) throw new Error(`${what}: max error ${err} > ${tol} (max |ref| ${max})`);
}

const SIZES = [1, 2, 7, 16, 17, 100, 1024];
const NORMS = [undefined, 'backward', 'ortho', 'forward'] as const;
const CDT = (d: DTypeName): DTypeName => (isComplex(d) ? d : single(d) ? 'complex64' : 'complex128');
const RDT = (d: DTypeName): DTypeName => (single(d) ? 'float32' : 'float64');

// ---- no GPU needed -------------------------------------------------------------------------------

describe('fft without a GPU', () => {
  test('cuFFT loads and says its version and path', () => {
    const v = fft.version();
    expect(v.version).toBeGreaterThanOrEqual(11000);
    expect(v.path).toMatch(/libcufft\.so/);
  });

  test('NODECUDA_CUFFT pointing nowhere: CufftError CUFFT_NOT_FOUND saying what to install', () => {
    if (!fs.existsSync(path.join(DIST, 'index.js'))) throw new Error('run "npm run build:ts" first: the child loads dist/');
    const script = `const cuda = require(${JSON.stringify(DIST)});
      const out = [];
      for (let i = 0; i < 2; i++) {
        try { cuda.fft.version(); out.push('no error'); } catch (e) {
          out.push({ cls: e instanceof cuda.CufftError, name: e.name, code: e.code, message: e.message });
        }
      }
      console.log(JSON.stringify(out));`;
    const r = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, NODECUDA_CUFFT: '/nonexistent/libcufft.so' }, encoding: 'utf8', timeout: 60000,
    });
    expect(r.status).toBe(0);
    const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as Array<Record<string, unknown>>;
    for (const o of out) {
      expect(o).toMatchObject({ cls: true, name: 'CufftError', code: 'CUFFT_NOT_FOUND' });
      expect(o.message).toContain('/nonexistent/libcufft.so');
      expect(o.message).toMatch(/Install the CUDA toolkit/);
    }
  });

  test('CufftError carries code, status and call', () => {
    const e = new CufftError('cufftExecC2C failed: CUFFT_INVALID_SIZE', { code: 'CUFFT_INVALID_SIZE', status: 8, call: 'cufftExecC2C' });
    expect(e).toBeInstanceOf(Error);
    expect([e.name, e.code, e.status, e.call]).toEqual(['CufftError', 'CUFFT_INVALID_SIZE', 8, 'cufftExecC2C']);
  });

  test('fftfreq and rfftfreq as NumPy computes them', () => {
    expect([...fftfreqHost(4)]).toEqual([0, 0.25, -0.5, -0.25]);
    expect([...fftfreqHost(5, 0.1)].map((x) => +x.toFixed(12))).toEqual([0, 2, 4, -4, -2]);
    expect([...fftfreqHost(8, 0.1)].map((x) => +x.toFixed(12))).toEqual([0, 1.25, 2.5, 3.75, -5, -3.75, -2.5, -1.25]);
    expect([...fftfreqHost(1)]).toEqual([0]);
    expect([...rfftfreqHost(5, 0.1)].map((x) => +x.toFixed(12))).toEqual([0, 2, 4]);
    expect([...rfftfreqHost(8)]).toEqual([0, 0.125, 0.25, 0.375, 0.5]);
    expectCode(() => fftfreqHost(0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => fftfreqHost(2.5), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => rfftfreqHost(4, 0), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => fft.fftfreq(-1), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('the CPU reference: known transforms, inverses, Hermitian round trips', () => {
    const h = (re: number[], shape = [re.length], im = re.map(() => 0)): H =>
      ({ re: Float64Array.from(re), im: Float64Array.from(im), shape });
    const near = (a: H, b: H): void => {
      expect(a.shape).toEqual(b.shape);
      a.re.forEach((v, i) => { expect(v).toBeCloseTo(b.re[i], 12); expect(a.im[i]).toBeCloseTo(b.im[i], 12); });
    };
    near(refC2C(h([1, 0, 0, 0]), [0], [4], false), h([1, 1, 1, 1]));
    near(refC2C(h([0, 1, 0, 0]), [0], [4], false), h([1, 0, -1, 0], [4], [0, -1, 0, 1]));
    near(refC2C(h([1, 2, 3]), [0], [5], false, 'forward'), refC2C(h([1, 2, 3, 0, 0]), [0], [5], false, 'forward'));
    near(refR2C(h([1, 2, 3, 4]), [0], [4]), h([10, -2, -2], [3], [0, 2, 0]));
    const x = h(values(35, 3), [5, 7]);
    for (const axes of [[0, 1], [1, 0], [1]]) {
      const s = axes.map((a) => x.shape[a]);
      near(refC2R(refR2C(x, axes, s), axes, s), x);
      near(refC2C(refC2C(x, axes, s, false, 'ortho'), axes, s, true, 'ortho'), x);
    }
  });

  test('axes, sizes and dtypes resolve as in NumPy', () => {
    const a = { ndim: 3, shape: [4, 6, 5] };
    expect(resolve(a, 'c2c', [-1], null, 'fft')).toEqual({ axes: [2], s: [5] });
    expect(resolve(a, 'c2c', null, null, 'fftn')).toEqual({ axes: [0, 1, 2], s: [4, 6, 5] });
    expect(resolve(a, 'c2c', null, [3, 8], 'fftn')).toEqual({ axes: [1, 2], s: [3, 8] });
    expect(resolve(a, 'c2r', [2, 0], null, 'irfftn')).toEqual({ axes: [2, 0], s: [5, 6] });
    expect(resolve(a, 'c2r', [-1], [7], 'irfft')).toEqual({ axes: [2], s: [7] });
    expectCode(() => resolve({ ndim: 1, shape: [1] }, 'c2r', [0], null, 'irfft'), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resolve({ ndim: 1, shape: [0] }, 'c2c', [0], null, 'fft'), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resolve(a, 'c2c', [0, -3], null, 'fftn'), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => resolve(a, 'c2c', [3], null, 'fft'), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => resolve(a, 'c2c', [0, 1], [4], 'fftn'), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => resolve(a, 'c2c', [0], [0], 'fftn'), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => resolve({ ndim: 0, shape: [] }, 'c2c', [-1], null, 'fft'), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    const w = (k: 'c2c' | 'r2c' | 'c2r', d: DTypeName): string => workDtype(k, DTYPES[d], 'f').name;
    const all = ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint64', 'bool', 'complex64', 'complex128'] as DTypeName[];
    expect(all.map((d) => w('c2c', d)))
      .toEqual(['complex64', 'complex64', 'complex64', 'complex128', 'complex128', 'complex128', 'complex128', 'complex64', 'complex128']);
    expect(['float16', 'bfloat16', 'float32', 'float64', 'int32'].map((d) => w('r2c', d as DTypeName)))
      .toEqual(['float32', 'float32', 'float32', 'float64', 'float64']);
    expect(w('c2r', 'float32')).toBe('complex64');
    expectCode(() => w('r2c', 'complex64'), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('plan layouts: the advanced layout of cuFFT, simulated on the CPU, computes the transform of the axes', () => {
    // cuFFT's documented layout: element x of batch b is at idist·b + ((x0·inembed1 + x1)·inembed2 + x2)·istride.
    const lin = (x: number[], embed: number[]): number => x.reduce((p, v, i) => (i === 0 ? v : p * embed[i] + v), 0);
    const indices = (shape: number[]): number[][] => {
      const out: number[][] = [];
      for (let f = 0; f < size(shape); f++) out.push(shape.map((_, d) => Math.floor(f / strides(shape)[d]) % shape[d]));
      return out;
    };
    function simulate(execs: Exec[], kind: 'c2c' | 'r2c' | 'c2r', src: H, D: number[], inverse: boolean): H {
      const out: H = { re: new Float64Array(size(D)), im: new Float64Array(size(D)), shape: D };
      const writes = new Uint8Array(size(D));
      for (const { g, ioff, ooff } of execs) {
        // cuFFT rejects a real pointer not aligned to the complex type (CUFFT_INVALID_VALUE at exec).
        if (kind === 'r2c') expect(ioff % 2).toBe(0);
        if (kind === 'c2r') expect(ooff % 2).toBe(0);
        const k = g.n.length, axes = g.n.map((_, i) => i);
        const inShape = kind === 'c2r' ? [...g.n.slice(0, -1), Math.floor(g.n[k - 1] / 2) + 1] : g.n;
        for (let b = 0; b < g.batch; b++) {
          const blk: H = { re: new Float64Array(size(inShape)), im: new Float64Array(size(inShape)), shape: inShape };
          indices(inShape).forEach((x, f) => {
            const i = ioff + b * g.idist + lin(x, g.inembed) * g.istride;
            blk.re[f] = src.re[i];
            blk.im[f] = src.im[i];
          });
          const r = kind === 'c2c' ? refC2C(blk, axes, g.n, inverse, inverse ? 'forward' : undefined)
            : kind === 'r2c' ? refR2C(blk, axes, g.n) : refC2R(blk, axes, g.n, 'forward');
          indices(r.shape).forEach((x, f) => {
            const o = ooff + b * g.odist + lin(x, g.onembed) * g.ostride;
            out.re[o] = r.re[f];
            out.im[o] = r.im[f];
            writes[o]++;
          });
        }
      }
      expect(writes.every((w) => w === 1)).toBe(true); // every output element written exactly once
      return out;
    }
    const cases: Array<[number[], number, number]> = [[[5], 0, 1], [[3, 4, 6], 0, 1], [[3, 4, 6], 1, 1], [[3, 4, 6], 2, 1],
      [[3, 4, 6], 0, 2], [[3, 4, 6], 1, 2], [[3, 4, 6], 0, 3], [[3, 2, 50], 1, 1], [[50, 2, 3], 1, 1], [[2, 3, 4, 5], 1, 2],
      [[33, 2, 2, 4], 1, 2], [[3, 7, 50], 1, 1], [[3, 7, 5], 1, 1], [[50, 7, 3], 1, 1], [[3, 5, 4], 1, 1]];
    // R2C/C2R layouts that would need an odd real offset are null: the step moves the block last (offset 0).
    const realNull: string[] = [];
    const realSim = (type: number, kind: 'r2c' | 'c2r', src: H, S: number[], D: number[], d0: number, k: number): H | null => {
      const ex = layouts(type, S, D, d0, k);
      if (ex === null) {
        realNull.push(`${kind} ${S}->${D} at ${d0}`);
        expect(layouts(type, [...S.slice(0, d0), ...S.slice(d0 + k), ...S.slice(d0, d0 + k)],
          [...D.slice(0, d0), ...D.slice(d0 + k), ...D.slice(d0, d0 + k)], S.length - k, k)).toHaveLength(1);
        return null;
      }
      return simulate(ex, kind, src, D, kind === 'c2r');
    };
    let sims = 0;
    for (const [S, d0, k] of cases) {
      const axes = Array.from({ length: k }, (_, i) => d0 + i), last = d0 + k - 1;
      const x = { re: Float64Array.from(values(size(S), 7)), im: Float64Array.from(values(size(S), 8)), shape: S };
      const real = { re: x.re, im: new Float64Array(size(S)), shape: S };
      for (const inverse of [false, true]) {
        const ex = layouts(CUFFT_TYPE.C2C, S, S, d0, k);
        expect(ex).not.toBeNull();
        const want = refC2C(x, axes, axes.map((a) => S[a]), inverse, inverse ? 'forward' : undefined);
        expect(simulate(ex!, 'c2c', x, S, inverse)).toEqual(want);
      }
      const half = S.map((v, d) => (d === last ? Math.floor(v / 2) + 1 : v));
      const gotR = realSim(CUFFT_TYPE.R2C, 'r2c', real, S, half, d0, k);
      if (gotR) expect(gotR).toEqual(refR2C(real, axes, axes.map((a) => S[a])));
      for (const m of [S[last], S[last] + 1]) { // C2R to an even and an odd length
        const D = S.map((v, d) => (d === last ? m : v)), C = D.map((v, d) => (d === last ? Math.floor(v / 2) + 1 : v));
        const c = resize(x, last, C[last]);
        const got = realSim(CUFFT_TYPE.Z2D, 'c2r', c, C, D, d0, k);
        const want = refC2R(c, axes, axes.map((a) => D[a]), 'forward');
        got?.re.forEach((v, i) => expect(Math.abs(v - want.re[i])).toBeLessThan(1e-9));
      }
      sims++;
    }
    expect(sims).toBe(cases.length);
    // Looping over the inner dimensions puts the real side at offsets 1, 2, ...; over the outer ones
    // at multiples of the block, odd for [3, 7, 5] (and for C2R to an odd length: [2, 3, 5, 5]).
    expect(realNull).toEqual(['r2c 50,2,3->50,2,3 at 1', 'c2r 50,2,3->50,2,3 at 1', 'c2r 50,2,3->50,3,3 at 1',
      'c2r 2,3,3,5->2,3,5,5 at 1', 'r2c 33,2,2,4->33,2,2,4 at 1', 'c2r 33,2,2,4->33,2,2,4 at 1',
      'c2r 33,2,2,4->33,2,3,4 at 1', 'r2c 3,7,5->3,4,5 at 1', 'c2r 3,4,5->3,7,5 at 1',
      'r2c 50,7,3->50,4,3 at 1', 'c2r 50,4,3->50,7,3 at 1', 'c2r 50,5,3->50,8,3 at 1']);
    // Many dimensions on both sides of the axis: moved last through a copy instead.
    expect(layouts(CUFFT_TYPE.C2C, [40, 3, 40], [40, 3, 40], 1, 1)).toBeNull();
    expect(layouts(CUFFT_TYPE.C2C, [3, 5, 4], [3, 5, 4], 1, 1)).toHaveLength(3);
    expect(layouts(CUFFT_TYPE.C2C, [50, 7, 3], [50, 7, 3], 1, 1)).toHaveLength(3); // complex offsets 0, 1, 2 are fine
    expect(layouts(CUFFT_TYPE.R2C, [3, 7, 50], [3, 4, 50], 1, 1)?.map((e) => e.ioff)).toEqual([0, 350, 700]);
  });

  test('argument errors that need no array', () => {
    expectCode(() => fft.fft(null as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => fft.rfft2([1, 2] as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => fft.setPlanCacheLimit(0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => fft.setPlanCacheLimit(-1), RangeError, 'ERR_OUT_OF_RANGE');
    expect(fft.planCacheInfo()).toEqual({ size: 0, limit: 16 });
    fft.clearPlanCache();
  });
});

// ---- on the GPU ----------------------------------------------------------------------------------

describeGpu('fft on the GPU against a CPU DFT', () => {
  afterEach(() => fft.setPlanCacheLimit(16));

  test.each(['complex64', 'complex128', 'float32', 'float64', 'int32', 'float16', 'bfloat16'] as DTypeName[])(
    '%s: fft and ifft, every size and norm', (d) => cuda.tidy(() => {
      for (const n of SIZES) {
        const [a, h] = make(d, [n], n);
        for (const norm of NORMS) {
          expectClose(fft.fft(a, { norm }), refC2C(h, [0], [n], false, norm), CDT(d), `fft ${d} n=${n} ${norm}`);
          expectClose(fft.ifft(a, { norm }), refC2C(h, [0], [n], true, norm), CDT(d), `ifft ${d} n=${n} ${norm}`);
        }
      }
    }));

  test.each(['float32', 'float64', 'int16'] as DTypeName[])('%s: rfft and irfft (odd and even n), every size and norm', (d) => cuda.tidy(() => {
    for (const n of SIZES) {
      const [a, h] = make(d, [n], 100 + n);
      for (const norm of NORMS) {
        const X = fft.rfft(a, { norm });
        expectClose(X, refR2C(h, [0], [n], norm), CDT(RDT(d)), `rfft ${d} n=${n} ${norm}`);
        if (n === 1) continue;
        // irfft with the original (odd or even) length recovers x.
        expectClose(fft.irfft(X, { n, norm }), h, RDT(d), `irfft(rfft) ${d} n=${n} ${norm}`);
        const hx = download(X);
        expectClose(fft.irfft(X, { norm }), refC2R(hx, [0], [2 * (hx.shape[0] - 1)], norm), RDT(d), `irfft ${d} m=${hx.shape[0]} ${norm}`);
      }
    }
  }));

  test('n crops and zero-pads (fft, ifft, rfft, irfft); empty axes with n pad', () => cuda.tidy(() => {
    const [a, h] = make('complex64', [16], 5);
    for (const n of [1, 5, 16, 17, 40]) {
      expectClose(fft.fft(a, { n }), refC2C(h, [0], [n], false), 'complex64', `fft n=${n}`);
      expectClose(fft.ifft(a, { n, norm: 'ortho' }), refC2C(h, [0], [n], true, 'ortho'), 'complex64', `ifft n=${n}`);
    }
    const [r, hr] = make('float64', [12], 6);
    for (const n of [3, 12, 13, 31]) expectClose(fft.rfft(r, { n }), refR2C(hr, [0], [n]), 'complex128', `rfft n=${n}`);
    const [c, hc] = make('complex128', [7], 7);
    for (const n of [1, 2, 5, 12, 13, 31]) expectClose(fft.irfft(c, { n }), refC2R(hc, [0], [n]), 'float64', `irfft n=${n}`);
    const e = gpuarray.zeros([0], 'complex64');
    expectClose(fft.fft(e, { n: 4 }), { re: new Float64Array(4), im: new Float64Array(4), shape: [4] }, 'complex64', 'fft of empty, n=4');
  }));

  test('axes: first, middle, last of 3-D; 2-D and N-D; strided, looped and transposed layouts', () => cuda.tidy(() => {
    // [50, 7, 3] and [3, 7, 5] axis 1: R2C/C2R loops would put the real side at odd offsets.
    for (const shape of [[3, 5, 4], [40, 7, 40], [3, 7, 50], [50, 7, 3], [3, 7, 5]]) {
      const [a, h] = make('complex64', shape, shape[0]);
      for (const ax of [0, 1, 2, -1]) {
        const axn = (ax + 3) % 3;
        expectClose(fft.fft(a, { axis: ax }), refC2C(h, [axn], [shape[axn]], false), 'complex64', `fft axis ${ax} of ${shape}`);
      }
      const [r, hr] = make('float32', shape, shape[1]);
      for (const ax of [0, 1, 2]) {
        const X = fft.rfft(r, { axis: ax });
        expectClose(X, refR2C(hr, [ax], [shape[ax]]), 'complex64', `rfft axis ${ax} of ${shape}`);
        expectClose(fft.irfft(X, { axis: ax, n: shape[ax] }), hr, 'float32', `irfft axis ${ax} of ${shape}`);
      }
    }
    const [a, h] = make('complex128', [4, 6, 5], 9);
    expectClose(fft.fft2(a), refC2C(h, [1, 2], [6, 5], false), 'complex128', 'fft2');
    expectClose(fft.ifft2(a, { axes: [0, 2], norm: 'forward' }), refC2C(h, [0, 2], [4, 5], true, 'forward'), 'complex128', 'ifft2 axes [0, 2]');
    expectClose(fft.fftn(a), refC2C(h, [0, 1, 2], [4, 6, 5], false), 'complex128', 'fftn');
    expectClose(fft.fftn(a, { s: [3, 8] }), refC2C(h, [1, 2], [3, 8], false), 'complex128', 'fftn s=[3, 8]');
    expectClose(fft.ifftn(a, { axes: [2, 0] }), refC2C(h, [2, 0], [5, 4], true), 'complex128', 'ifftn axes [2, 0]');
    const [b, hb] = make('complex64', [2, 3, 4, 5], 10);
    expectClose(fft.fftn(b), refC2C(hb, [0, 1, 2, 3], [2, 3, 4, 5], false), 'complex64', 'fftn of 4-D (two plans)');
    const [r, hr] = make('float64', [4, 6, 5], 11);
    for (const axes of [[0, 1, 2], [1, 2], [2, 0], [0, 2], [1]]) {
      const s = axes.map((ax) => hr.shape[ax]);
      const X = fft.rfftn(r, { axes });
      expectClose(X, refR2C(hr, axes, s), 'complex128', `rfftn axes ${axes}`);
      expectClose(fft.irfftn(X, { axes, s }), hr, 'float64', `irfftn(rfftn) axes ${axes}`);
      const hx = download(X);
      const s2 = axes.map((ax, i) => (i === axes.length - 1 ? 2 * (hx.shape[ax] - 1) : hx.shape[ax]));
      expectClose(fft.irfftn(X, { axes }), refC2R(hx, axes, s2), 'float64', `irfftn axes ${axes}`);
    }
    expectClose(fft.rfft2(r, { s: [3, 9] }), refR2C(hr, [1, 2], [3, 9]), 'complex128', 'rfft2 s=[3, 9]');
    const [c, hc] = make('complex64', [6, 4], 12);
    expectClose(fft.irfft2(c, { s: [5, 7], norm: 'ortho' }), refC2R(hc, [0, 1], [5, 7], 'ortho'), 'float32', 'irfft2 s=[5, 7]');
  }));

  test('non-contiguous input: transposed, sliced with a step, broadcast', () => cuda.tidy(() => {
    const [a, h] = make('complex64', [6, 10], 13);
    const t = a.transpose();
    expectClose(fft.fft(t), refC2C(download(t.copy()), [1], [6], false), 'complex64', 'fft of a transpose');
    const s = a.index(':', '::3');
    expectClose(fft.fft(s, { axis: 0 }), refC2C(download(s.copy()), [0], [6], false), 'complex64', 'fft of a strided slice');
    const [r] = make('float32', [10], 14);
    const bc = r.broadcastTo([3, 10]);
    expectClose(fft.rfft(bc), refR2C(download(bc.copy()), [1], [10]), 'complex64', 'rfft of a broadcast');
    // C-contiguous views one element past an aligned start: not aligned to the complex type.
    for (const d of ['float32', 'float64'] as DTypeName[]) {
      const v = make(d, [11], 15)[0].index('1:');
      expectClose(fft.rfft(v), refR2C(download(v.copy()), [0], [10]), CDT(d), `rfft of a ${d} view at an odd offset`);
    }
    expect(h.shape).toEqual([6, 10]);
  }));

  test('empty input and sizes below 1 behave as in NumPy', () => cuda.tidy(() => {
    expectCode(() => fft.fft(gpuarray.zeros([0], 'complex64')), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => fft.fft(gpuarray.zeros([4], 'complex64'), { n: 0 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => fft.irfft(gpuarray.zeros([1], 'complex64')), RangeError, 'ERR_OUT_OF_RANGE');
    const r = fft.fft(gpuarray.zeros([0, 4], 'float32'));
    expect([[...r.shape], r.dtype.name]).toEqual([[0, 4], 'complex64']);
    const q = fft.rfft(gpuarray.zeros([3, 0, 8], 'float64'));
    expect([[...q.shape], q.dtype.name]).toEqual([[3, 0, 5], 'complex128']);
  }));

  test('argument errors', () => cuda.tidy(() => {
    const c = gpuarray.zeros([4, 4], 'complex64'), r = gpuarray.zeros([4], 'float32');
    expectCode(() => fft.rfft(c), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => fft.fft(r, { norm: 'bad' as 'ortho' }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => fft.fft(r, { n: 2.5 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => fft.fft(r, { n: '4' as unknown as number }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => fft.fft(r, { axis: 1 }), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => fft.fft2(r), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
    expectCode(() => fft.fftn(c, { axes: [0, 0] }), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => fft.fftn(c, { axes: [0, 1], s: [4] }), RangeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => fft.fft(gpuarray.zeros([], 'float32')), RangeError, 'ERR_AXIS_OUT_OF_RANGE');
  }));

  test('round trips: ifft(fft(x)) ≈ x at 2^20 + 3 and prime sizes; irfft(rfft(x), odd n)', () => cuda.tidy(() => {
    for (const [d, n] of [['complex64', 2 ** 20 + 3], ['complex128', 65537], ['complex64', 4099]] as Array<[DTypeName, number]>) {
      const [a, h] = make(d, [n], n);
      expectClose(fft.ifft(fft.fft(a)), h, d, `ifft(fft) ${d} n=${n}`);
    }
    for (const n of [1001, 4097, 99991]) {
      const [r, hr] = make('float32', [n], n);
      expectClose(fft.irfft(fft.rfft(r), { n }), hr, 'float32', `irfft(rfft) n=${n}`);
    }
  }));

  test('fftfreq, rfftfreq, fftshift, ifftshift', () => cuda.tidy(() => {
    for (const n of [1, 4, 5, 8]) {
      expect([...(fft.fftfreq(n, 0.5).get() as Float64Array)]).toEqual([...fftfreqHost(n, 0.5)]);
      expect([...(fft.rfftfreq(n).get() as Float64Array)]).toEqual([...rfftfreqHost(n)]);
    }
    expect(fft.fftfreq(4, 1, { dtype: 'float32' }).dtype.name).toBe('float32');
    expect([...(fft.fftshift(fft.fftfreq(5)).get() as Float64Array)]).toEqual([-0.4, -0.2, 0, 0.2, 0.4]);
    expect([...(fft.fftshift(fft.fftfreq(4)).get() as Float64Array)]).toEqual([-0.5, -0.25, 0, 0.25]);
    const x = gpuarray.arange(0, 15, 1, 'int32').reshape(3, 5);
    // numpy.fft.fftshift(np.arange(15).reshape(3, 5)) and with axes=1
    expect([...(fft.fftshift(x).get() as Int32Array)]).toEqual([13, 14, 10, 11, 12, 3, 4, 0, 1, 2, 8, 9, 5, 6, 7]);
    expect([...(fft.fftshift(x, { axes: 1 }).get() as Int32Array)]).toEqual([3, 4, 0, 1, 2, 8, 9, 5, 6, 7, 13, 14, 10, 11, 12]);
    for (const n of [1, 6, 7]) {
      const y = gpuarray.arange(0, n, 1, 'float64');
      expect([...(fft.ifftshift(fft.fftshift(y)).get() as Float64Array)]).toEqual([...(y.get() as Float64Array)]);
    }
  }));

  test('plan cache: LRU limit, clearPlanCache, plans shared across streams, no leaked work areas', () => {
    fft.clearPlanCache();
    fft.setPlanCacheLimit(3);
    const before = cuda.memory().liveAllocations;
    cuda.tidy(() => {
      for (const n of [16, 17, 18, 19, 20]) fft.fft(gpuarray.zeros([n], 'complex64'));
    });
    expect(fft.planCacheInfo()).toEqual({ size: 3, limit: 3 });
    expect(cuda.memory().liveAllocations).toBe(before);
    fft.clearPlanCache();
    expect(fft.planCacheInfo().size).toBe(0);
    cuda.tidy(() => {
      const s1 = new driver.Stream(), s2 = new driver.Stream();
      const [a, h] = make('complex64', [1 << 16], 3);
      const x1 = fft.fft(a, { stream: s1 }), x2 = fft.fft(a, { stream: s2 });
      s1.synchronize();
      s2.synchronize();
      expect(fft.planCacheInfo().size).toBe(1);
      const want = fft.fft(a);
      expectClose(x1, download(want), 'complex64', 'fft on stream 1');
      expectClose(x2, download(want), 'complex64', 'fft on stream 2');
      expect(h.shape).toEqual([1 << 16]);
      s1.dispose();
      s2.dispose();
    });
  });
});
