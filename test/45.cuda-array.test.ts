/**
 * CUDA arrays, 2-D/3-D copies, pitched memory, texture and surface objects (lib/cuda/cuda_array.ts,
 * lib/cuda/texture.ts, src/array.cc). Argument checks and NVRTC compilation of texture/surface kernels
 * run without a GPU; round trips, sampling and surface writes need one.
 */
import { SourceModule, compiler, driver, gpuarray } from '../lib';
import { parseKernelSignatures } from '../lib/cuda/launch';
import { formatOf, plan } from '../lib/cuda/cuda_array';
import { describeGpu, expectCode } from './helpers';

const KERNELS = `
__global__ void fetch2d(cudaTextureObject_t t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}
__global__ void sample1(cudaTextureObject_t t, const float *u, const float *v, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex2D<float>(t, u[i], v[i]);
}
__global__ void fetchLinear(cudaTextureObject_t t, float *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = tex1Dfetch<float>(t, i);
}
__global__ void surfWrite(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) {
    float v;
    surf2Dread(&v, s, x * 4, y);
    surf2Dwrite(v * 2.0f + (float)(y * 1000 + x), s, x * 4, y);
  }
}
__global__ void fetch3d(cudaTextureObject_t t, short *out, int w, int h, int d) {
  int x = threadIdx.x, y = threadIdx.y, z = blockIdx.x;
  if (x < w && y < h && z < d) out[(z * h + y) * w + x] = tex3D<short>(t, x + 0.5f, y + 0.5f, z + 0.5f);
}`;

describe('CUDA arrays and textures without a GPU', () => {
  test('formats: dtypes and CUarray_format numbers', () => {
    expect(formatOf('float32')).toBe(driver.arrayFormat.FLOAT);
    expect(formatOf(Uint8Array)).toBe(driver.arrayFormat.UNSIGNED_INT8);
    expect(formatOf('float16')).toBe(driver.arrayFormat.HALF);
    expect(formatOf(0x09)).toBe(driver.arrayFormat.SIGNED_INT16);
    expectCode(() => formatOf('float64'), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => formatOf(0x77), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('descriptor and option checks come before any driver call', () => {
    expectCode(() => new driver.Array({ format: 'float64', width: 4 }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => new driver.Array({ format: 'float32', width: 0 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new driver.Array({ format: 'float32', width: 4, depth: 2 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new driver.Array({ format: 'float32', width: 4, numChannels: 3 as 1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new driver.Array(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.memAllocPitch(64, 4, 3), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new driver.TextureObject({} as never, { addressMode: 'repeat' as never }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => new driver.TextureObject({} as never, { filterMode: 'cubic' as never }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => new driver.TextureObject({} as never, { readMode: 'x' as never }), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => new driver.TextureObject({} as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new driver.SurfaceObject({} as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new driver.Memcpy2D().call(), TypeError, 'ERR_MISSING_ARGS');
    expectCode(() => driver.memcpy2D({ src: new Float32Array(4), dst: new Float32Array(4) }), TypeError, 'ERR_MISSING_ARGS');
    // A host end too small for the copy is refused here, never read past.
    expectCode(() => driver.memcpy2D({ src: new Float32Array(4), dst: new Float32Array(64), widthInBytes: 16, height: 2 }),
      RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => driver.memcpy3D({
      src: new Float32Array(64), dst: new Float32Array(64), widthInBytes: 16, height: 2, depth: 2, srcHeight: 1,
    }),
      RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => driver.memcpy2D({ src: new Float32Array(64), dst: new Float32Array(64), widthInBytes: 16, height: 2, srcPitch: 8 }),
      RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => driver.memcpy2D({ src: new Float32Array(64), dst: new Float32Array(64), widthInBytes: 16, depth: 2 } as never),
      TypeError, 'ERR_INVALID_ARG_VALUE');
    // Not a shape, not a GPUArray: typed errors, not a property read of undefined.
    expectCode(() => driver.matrixToArray(new Float32Array(4), undefined as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.arrayFromGPUArray(new Float32Array(4) as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.gpuarrayToArray(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('host/device rows per slice default to the rows the copy reaches (y + height)', () => {
    // Regression: with dstY = 1 and height 4, a slice height of 4 made cuMemcpy3D return
    // CUDA_ERROR_INVALID_VALUE on the H100 (the driver wants y + height ≤ slice height).
    const [s, d, w, h, depth] = plan({ src: new Float32Array(64), dst: new Float32Array(120), widthInBytes: 20, height: 4,
      srcY: 0, dstXInBytes: 8, dstY: 1, dstPitch: 48 }, false);
    expect([w, h, depth]).toEqual([20, 4, 1]);
    expect(s).toMatchObject({ kind: 0, y: 0, pitch: 20, height: 4 });
    expect(d).toMatchObject({ kind: 0, x: 8, y: 1, pitch: 48, height: 5 });
  });

  test('texture and surface object parameters are 64-bit handles', () => {
    const sigs = parseKernelSignatures(KERNELS);
    expect(sigs.get('fetch2d')?.[0]).toMatchObject({ kind: 'scalar', name: 't' });
    expect((sigs.get('fetch2d')?.[0] as { dtype: { name: string } }).dtype.name).toBe('uint64');
    expect((sigs.get('surfWrite')?.[0] as { dtype: { name: string } }).dtype.name).toBe('uint64');
  });

  test('texture and surface kernels compile with NVRTC (no headers needed)', async () => {
    const r = await compiler.compileAsync(`extern "C" {${KERNELS}}`, { arch: 'sm_90', noExternC: true });
    const img = Buffer.from(r.image);
    for (const name of ['fetch2d', 'sample1', 'fetchLinear', 'surfWrite', 'fetch3d']) expect(img.includes(Buffer.from(`${name}\0`))).toBe(true);
  }, 60000);
});

describeGpu('CUDA arrays and textures on the GPU', () => {
  let mod: SourceModule;
  beforeAll(() => {
    mod = new SourceModule(KERNELS);
  });

  const ramp = (n: number, f = (i: number) => i * 0.5 - 7): Float32Array => Float32Array.from({ length: n }, (_, i) => f(i));

  test('2-D float array: host → array → host (odd sizes)', () => {
    const [h, w] = [37, 53];
    const src = ramp(h * w);
    using arr = driver.matrixToArray(src, [h, w]);
    expect(arr.descriptor).toMatchObject({ width: w, height: h, depth: 0, numChannels: 1, format: driver.arrayFormat.FLOAT });
    const out = new Float32Array(h * w).fill(NaN);
    driver.memcpy2D({ src: arr, dst: out });
    expect(out).toEqual(src);
  });

  test('4-channel uint8 and 3-D int16 round trips', () => {
    const rgba = Uint8Array.from({ length: 9 * 5 * 4 }, (_, i) => (i * 37) & 255);
    using a = driver.matrixToArray(rgba, [9, 5, 4], { channels: true });
    expect(a.descriptor).toMatchObject({ width: 5, height: 9, numChannels: 4, elementBytes: 4 });
    const back = new Uint8Array(rgba.length);
    driver.memcpy2D({ src: a, dst: back });
    expect(back).toEqual(rgba);

    const [d, h, w] = [5, 7, 9];
    const vol = Int16Array.from({ length: d * h * w }, (_, i) => i * 3 - 100);
    using v = driver.matrixToArray(vol, [d, h, w]);
    expect(v.descriptor).toMatchObject({ width: w, height: h, depth: d });
    const out = new Int16Array(vol.length);
    driver.memcpy3D({ src: v, dst: out });
    expect(out).toEqual(vol);
    // A sub-box: slices 1..3, rows 2..5, columns 4..7 into a packed host box.
    const box = new Int16Array(3 * 4 * 4);
    driver.memcpy3D({ src: v, dst: box, srcXInBytes: 4 * 2, srcY: 2, srcZ: 1, widthInBytes: 4 * 2, height: 4, depth: 3 });
    for (let z = 0; z < 3; z++) for (let y = 0; y < 4; y++) for (let x = 0; x < 4; x++) {
      expect(box[(z * 4 + y) * 4 + x]).toBe(vol[((z + 1) * h + y + 2) * w + x + 4]);
    }
  });

  test('pitched device memory: host → pitched → array → pitched → host, with offsets', () => {
    const [h, w] = [19, 33];
    const src = ramp(h * w, (i) => i);
    const [dev, pitch] = driver.memAllocPitch(w * 4, h, 4);
    expect(pitch % 512).toBe(0);
    expect(pitch).toBeGreaterThanOrEqual(w * 4);
    driver.memsetD8(dev, 0xff, pitch * h);
    driver.memcpy2D({ src, dst: dev, widthInBytes: w * 4, height: h }); // dstPitch remembered
    using arr = new driver.Array({ format: 'float32', width: w, height: h });
    driver.memcpy2D({ src: dev, dst: arr }); // srcPitch remembered, size from the array
    const [dev2, pitch2] = driver.memAllocPitch(w * 4, h, 4);
    driver.memcpy2D({ src: arr, dst: dev2 });
    const out = new Float32Array(h * w).fill(-1);
    driver.memcpy2D({ src: dev2, dst: out, srcPitch: pitch2, widthInBytes: w * 4, height: h, dstPitch: w * 4 });
    expect(out).toEqual(src);
    // Rows 3..6, columns 5..9 of the array into the middle of a host image.
    const part = new Float32Array(10 * 12).fill(0);
    driver.memcpy2D({ src: arr, dst: part, srcXInBytes: 5 * 4, srcY: 3, widthInBytes: 5 * 4, height: 4,
      dstXInBytes: 2 * 4, dstY: 1, dstPitch: 12 * 4 });
    for (let y = 0; y < 4; y++) for (let x = 0; x < 5; x++) expect(part[(y + 1) * 12 + x + 2]).toBe(src[(y + 3) * w + x + 5]);
    expect(part[0]).toBe(0);
    dev.free();
    dev2.free();
  });

  test('copies on a stream settle a Promise; the PyCUDA-style Memcpy2D object works', async () => {
    const [h, w] = [16, 24];
    const src = ramp(h * w, (i) => -i);
    const stream = new driver.Stream();
    using arr = new driver.Array({ format: 'float32', width: w, height: h });
    await driver.memcpy2DAsync({ src, dst: arr }, stream);
    const c = new driver.Memcpy2D();
    const out = new Float32Array(h * w);
    c.setSrcArray(arr);
    c.setDstHost(out);
    c.widthInBytes = w * 4;
    c.height = h;
    await c.callAsync(stream);
    expect(out).toEqual(src);
    const out3 = new Float32Array(h * w);
    await driver.memcpy3DAsync({ src: arr, dst: out3 }, stream);
    expect(out3).toEqual(src);
  });

  test('arrayFromGPUArray copies device to device', () => {
    const host = ramp(12 * 10);
    const g = gpuarray.toGpu(host, { shape: [12, 10] });
    using arr = driver.arrayFromGPUArray(g);
    expect(arr.descriptor).toMatchObject({ width: 10, height: 12 });
    const out = new Float32Array(host.length);
    driver.memcpy2D({ src: arr, dst: out });
    expect(out).toEqual(host);
    g.dispose();
  });

  test('2-D texture, point sampling: every texel read back exactly', () => {
    const [h, w] = [21, 29];
    const src = ramp(h * w);
    using arr = driver.matrixToArray(src, [h, w]);
    using tex = new driver.TextureObject(arr);
    const out = gpuarray.zeros([h, w], 'float32');
    mod.getFunction('fetch2d')(tex.handle, out, w, h, { block: [16, 16], grid: [2, 2] });
    expect(out.get()).toEqual(src);
  });

  test('linear filtering, clamp, border and normalized coordinates', () => {
    const vals = new Float32Array([0, 10, 20, 30]);
    using arr = driver.matrixToArray(vals, [1, 4]);
    const run = (desc: ConstructorParameters<typeof driver.TextureObject>[1], us: number[]): Float32Array => {
      using tex = new driver.TextureObject(arr, desc);
      const u = gpuarray.toGpu(new Float32Array(us));
      const v = gpuarray.toGpu(new Float32Array(us.length).fill(desc?.normalizedCoords ? 0.5 : 0.5));
      const out = gpuarray.zeros([us.length], 'float32');
      mod.getFunction('sample1')(tex.handle, u, v, out, us.length, { block: [32] });
      return out.get() as Float32Array;
    };
    // Linear: texel centres at i + 0.5; weights have 8 fractional bits (error ≤ 30/256).
    const lin = run({ filterMode: 'linear' }, [0.5, 1.0, 1.25, 3.5, 10]);
    const want = [0, 5, 7.5, 30, 30];
    lin.forEach((x, i) => expect(Math.abs(x - want[i])).toBeLessThanOrEqual(0.12));
    expect(run({}, [0.2, 1.9, -5, 99])).toEqual(new Float32Array([0, 10, 0, 30])); // point + clamp
    expect(run({ addressMode: 'border', borderColor: [-1, -1, -1, -1] }, [1.5, -2, 7])).toEqual(new Float32Array([10, -1, -1]));
    // Normalized coords with wrap: u = 1 + 0.625 → texel 2.
    expect(run({ normalizedCoords: true, addressMode: 'wrap' }, [0.125, 0.625, 1.625])).toEqual(new Float32Array([0, 20, 20]));
  });

  test('readMode normalizedFloat turns uint8 into [0, 1]', () => {
    using arr = driver.matrixToArray(new Uint8Array([0, 51, 255, 128]), [1, 4]);
    using tex = new driver.TextureObject(arr, { readMode: 'normalizedFloat' });
    const u = gpuarray.toGpu(new Float32Array([0.5, 1.5, 2.5, 3.5])), v = gpuarray.toGpu(new Float32Array(4).fill(0.5));
    const out = gpuarray.zeros([4], 'float32');
    mod.getFunction('sample1')(tex.handle, u, v, out, 4, { block: [32] });
    const got = out.get() as Float32Array;
    [0, 0.2, 1, 128 / 255].forEach((x, i) => expect(got[i]).toBeCloseTo(x, 5));
  });

  test('3-D texture of int16 (element type)', () => {
    const [d, h, w] = [3, 4, 5];
    const vol = Int16Array.from({ length: d * h * w }, (_, i) => 500 - i * 7);
    using arr = driver.matrixToArray(vol, [d, h, w]);
    using tex = new driver.TextureObject(arr);
    const out = gpuarray.zeros([d * h * w], 'int16');
    mod.getFunction('fetch3d')(tex.handle, out, w, h, d, { block: [w, h], grid: [d] });
    expect(out.get()).toEqual(vol);
  });

  test('linear-memory and pitched 2-D textures', () => {
    const n = 1000;
    const data = ramp(n);
    const g = gpuarray.toGpu(data);
    using lt = new driver.TextureObject({ linear: g, format: 'float32' });
    const out = gpuarray.zeros([n], 'float32');
    mod.getFunction('fetchLinear')(lt.handle, out, n, { block: [256], grid: [4] });
    expect(out.get()).toEqual(data);

    const [h, w] = [9, 13];
    const img = ramp(h * w, (i) => i * 1.5);
    const [dev, pitch] = driver.memAllocPitch(w * 4, h);
    driver.memcpy2D({ src: img, dst: dev, widthInBytes: w * 4, height: h });
    using pt = new driver.TextureObject({ pitch2D: dev, format: 'float32', width: w, height: h, pitchInBytes: pitch });
    const o2 = gpuarray.zeros([h, w], 'float32');
    mod.getFunction('fetch2d')(pt.handle, o2, w, h, { block: [16, 16] });
    expect(o2.get()).toEqual(img);
    expectCode(() => new driver.TextureObject({ pitch2D: dev, format: 'float32', width: w, height: h * 100, pitchInBytes: pitch }),
      RangeError, 'ERR_OUT_OF_RANGE');
    dev.free();
    g.dispose();
  });

  test('surface object: a kernel reads and writes the array', () => {
    const [h, w] = [17, 23];
    const src = ramp(h * w);
    using arr = driver.matrixToArray(src, [h, w], { surfaceLoadStore: true });
    expect(arr.descriptor.flags & driver.arrayFlags.SURFACE_LDST).toBeTruthy();
    using surf = new driver.SurfaceObject(arr);
    mod.getFunction('surfWrite')(surf.handle, w, h, { block: [8, 8], grid: [3, 3] });
    const out = new Float32Array(h * w);
    driver.memcpy2D({ src: arr, dst: out });
    for (let y = 0; y < h; y++) for (let x = 0; x < w; x++) expect(out[y * w + x]).toBe(src[y * w + x] * 2 + y * 1000 + x);
  });

  test('errors: surface without LDST, copy past an array, use after free, idempotent disposal', () => {
    const arr = new driver.Array({ format: 'float32', width: 8, height: 8 });
    expectCode(() => new driver.SurfaceObject(arr), TypeError, 'ERR_INVALID_ARG_VALUE');
    expectCode(() => driver.memcpy2D({ src: new Float32Array(81), dst: arr, widthInBytes: 9 * 4, height: 8 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => driver.memcpy2D({ src: new Float32Array(64), dst: arr, dstY: 1 }), RangeError, 'ERR_OUT_OF_RANGE');
    const small = driver.memAlloc(64);
    expectCode(() => driver.memcpy2D({ src: arr, dst: small }), RangeError, 'ERR_OUT_OF_RANGE');
    small.free();
    const tex = new driver.TextureObject(arr);
    expect(typeof tex.handle).toBe('bigint');
    arr.free();
    arr.free();
    expect(arr.freed).toBe(true);
    expect(tex.disposed).toBe(true); // disposed with its array
    expectCode(() => tex.handle, TypeError, 'ERR_USE_AFTER_DISPOSE');
    tex.dispose();
    expectCode(() => driver.memcpy2D({ src: arr, dst: new Float32Array(64) }), TypeError, 'ERR_USE_AFTER_FREE');
    expectCode(() => new driver.TextureObject(arr), TypeError, 'ERR_USE_AFTER_FREE');
    expectCode(() => arr.getDescriptor(), TypeError, 'ERR_USE_AFTER_FREE');
  });
});
