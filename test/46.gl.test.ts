/**
 * OpenGL interop (lib/gl, src/gl.cc, src/gl_interop.cc). Loading and argument checks run
 * everywhere; headless GL runs wherever EGL can make a context (Mesa's software device on CPU
 * machines; skipped with one line where there is none); CUDA registration and mapping need the
 * GPU machine (its libglvnd loaders come from .device/gl).
 * @gpu-order gl-first (test/setup/sequencer.js: before any file that faults the GPU)
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { CudaError, SourceModule, driver, gl, gpuarray, memory } from '../lib';
import type { HeadlessContext } from '../lib';
import { collect, describeGpu, expectCode, hasGpu } from './helpers';

const DIST = path.resolve(__dirname, '..', 'dist');

/** Why headless GL cannot run here ('' when it can): EGL missing, or no context could be made. */
function glSkipReason(): string {
  const a = gl.availability();
  if (!a.ok) return a.message;
  try {
    gl.createHeadlessContext({ makeCurrent: false }).dispose();
    return '';
  } catch (e) {
    // On the GPU machine GL must work: a failure there is a failure, not a skip.
    if (hasGpu) return '';
    return `no EGL context: ${(e as Error).message}`;
  }
}
const SKIP = glSkipReason();

function describeGl(name: string, fn: () => void): void {
  if (!SKIP) {
    describe(name, fn);
    return;
  }
  process.stdout.write(`[nodecuda] headless GL unavailable: skipping GL suites (${SKIP.split('\n')[0]})\n`);
  describe.skip(`${name} [skipped: no EGL]`, fn);
}

/** Runs `body` in a fresh Node (dist/) with `env`; the body sets fields of `out`. */
function child(body: string, env: Record<string, string>): Record<string, unknown> {
  const script = `
    const cuda = require(${JSON.stringify(DIST)});
    const grab = (fn) => { try { return { value: fn() }; } catch (e) {
      return { name: e.name, code: e.code, message: String(e.message), isGlError: e instanceof cuda.gl.GlError }; } };
    const out = {};
    ${body}
    console.log(JSON.stringify(out));`;
  const r = spawnSync(process.execPath, ['-e', script], { env: { ...process.env, ...env }, encoding: 'utf8', timeout: 60000 });
  if (r.status !== 0) throw new Error(`child exited with ${r.status}: ${r.stderr}`);
  return JSON.parse(r.stdout.trim().split('\n').pop() as string) as Record<string, unknown>;
}

describe('gl: loading and argument checks (no GPU, no GL needed)', () => {
  test('availability() never throws and agrees with isAvailable()', () => {
    const a = gl.availability();
    expect(typeof a.ok).toBe('boolean');
    expect(gl.isAvailable()).toBe(a.ok);
    expect(Array.isArray(a.devices)).toBe(true);
    if (!a.ok) expect(a.code).toBe('GL_NOT_AVAILABLE');
    if (!hasGpu) expect(a.interop).toBe(false);
  });

  test('without libEGL: isAvailable() is false with what to install; GL calls throw GlError GL_NOT_AVAILABLE', () => {
    const out = child(`
      out.available = cuda.gl.isAvailable();
      out.availability = cuda.gl.availability();
      out.create = grab(() => cuda.gl.createHeadlessContext());
      out.init = grab(() => cuda.gl.init());
      out.register = grab(() => new cuda.gl.RegisteredBuffer(1));
      out.bo = grab(() => new cuda.gl.BufferObject(16));`, { NODECUDA_LIBEGL: '/nonexistent/libEGL.so.1' });
    expect(out.available).toBe(false);
    const a = out.availability as { ok: boolean; code: string; message: string; interop: boolean };
    expect(a).toMatchObject({ ok: false, code: 'GL_NOT_AVAILABLE', interop: false });
    expect(a.message).toMatch(/libegl1/);
    expect(a.message).toMatch(/nonexistent/);
    for (const k of ['create', 'init', 'register']) {
      expect(out[k]).toMatchObject({ name: 'GlError', code: 'GL_NOT_AVAILABLE', isGlError: true });
    }
    expect(out.bo).toMatchObject({ code: 'GL_NO_CONTEXT' });
  });

  test('argument checks come first', () => {
    expectCode(() => new gl.RegisteredBuffer(0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new gl.RegisteredBuffer('1' as never), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new gl.RegisteredBuffer(1, 99), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new gl.RegisteredImage(1, 'tex' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new gl.RegisteredImage(1, gl.GL.TEXTURE_2D, 64), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gl.mapResources('x' as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gl.mapResources([{}] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gl.createHeadlessContext(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new gl.HeadlessContext(null as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gl.unmapResources(0 as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gl.unmapResources([{}] as never), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(gl.graphicsMapFlags).toEqual({ NONE: 0, READ_ONLY: 1, WRITE_DISCARD: 2 });
    expect(gl.graphicsRegisterFlags.SURFACE_LDST).toBe(4);
  });
});

describeGl('gl: headless context and GL helpers', () => {
  let ctx: HeadlessContext;
  beforeAll(() => {
    ctx = gl.createHeadlessContext();
  });
  afterAll(() => ctx?.dispose());

  test('a desktop GL context, current on this thread', () => {
    expect(ctx.isCurrent()).toBe(true);
    expect(ctx.info.version).toMatch(/^[3-4]\.\d/);
    expect(ctx.platform).toMatch(/EGL/);
    if (hasGpu) {
      expect(ctx.cudaDevice).toBe(0);
      expect(ctx.info.vendor).toMatch(/NVIDIA/);
    }
  });

  test('buffers: create with data, write, read, size, delete', () => {
    const data = Float32Array.from({ length: 1000 }, (_, i) => i * 0.25 - 3);
    const b = ctx.createBuffer(data);
    expect(ctx.bufferSize(b)).toBe(4000);
    expect(ctx.readBuffer(b, new Float32Array(1000))).toEqual(data);
    ctx.writeBuffer(b, new Float32Array([7, 8]), 40);
    const part = ctx.readBuffer(b, new Float32Array(4), 36);
    expect(Array.from(part)).toEqual([data[9], 7, 8, data[12]]);
    // Past the end: GL refuses, nothing is read.
    expect(() => ctx.readBuffer(b, new Float32Array(8), 3990)).toThrow(expect.objectContaining({ code: 'GL_INVALID_VALUE' }));
    ctx.deleteBuffer(b);
  });

  test('textures: upload from host and from a pixel buffer, read back, framebuffer readback', () => {
    const [w, h] = [13, 7];
    const px = Uint8Array.from({ length: w * h * 4 }, (_, i) => (i * 29 + 3) & 255);
    const t = ctx.createTexture(w, h, { data: px });
    expect(ctx.textureSize(t)).toEqual([w, h]);
    expect(ctx.readTexture(t)).toEqual(px);
    const pbo = ctx.createBuffer(px.map((v) => 255 - v), { target: gl.GL.PIXEL_UNPACK_BUFFER });
    ctx.writeTexture(t, { buffer: pbo }, { width: w, height: h });
    expect(ctx.readTexture(t)).toEqual(px.map((v) => 255 - v));
    const fbo = ctx.createFramebuffer(t);
    expect(ctx.readPixels(fbo, 0, 0, w, h)).toEqual(px.map((v) => 255 - v));
    const f = ctx.createTexture(4, 2, {
      internalFormat: gl.GL.R32F, format: gl.GL.RED, type: gl.GL.FLOAT, data: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8.5]),
    });
    expect(ctx.readTexture(f, { format: gl.GL.RED, type: gl.GL.FLOAT })).toEqual(new Float32Array([1, 2, 3, 4, 5, 6, 7, 8.5]));
    expectCode(() => ctx.createTexture(4, 4, { data: new Uint8Array(10) }), RangeError, 'ERR_OUT_OF_RANGE');
    for (const x of [t, f]) ctx.deleteTexture(x);
    ctx.deleteFramebuffer(fbo);
    ctx.deleteBuffer(pbo);
  });

  test('a program draws a shaded full-screen triangle from a texture', () => {
    const [w, h] = [8, 4];
    const src = Uint8Array.from({ length: w * h * 4 }, (_, i) => (i * 7) & 255);
    const tex = ctx.createTexture(w, h, { data: src });
    const target = ctx.createTexture(w, h);
    const fbo = ctx.createFramebuffer(target);
    const prog = ctx.createProgram(
      `#version 330 core
       void main() { vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2); gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0); }`,
      `#version 330 core
       uniform sampler2D tex; uniform float gain; out vec4 color;
       void main() { color = texelFetch(tex, ivec2(gl_FragCoord.xy), 0) * gain; }`);
    ctx.clear(fbo, [1, 0, 0, 1]);
    ctx.drawFullscreen(prog, fbo, tex, w, h, { gain: 0.5 });
    const got = ctx.readPixels(fbo, 0, 0, w, h) as Uint8Array;
    got.forEach((v, i) => expect(Math.abs(v - src[i] * 0.5)).toBeLessThanOrEqual(1));
    const bad = (() => { try { ctx.createProgram('#version 330 core\nvoid main() { oops; }', 'x'); } catch (e) { return e as { code: string; message: string }; } })();
    expect(bad?.code).toBe('GL_COMPILE_FAILED');
    expect(bad?.message).toMatch(/vertex shader/);
    ctx.deleteProgram(prog);
    ctx.deleteFramebuffer(fbo);
    ctx.deleteTexture(tex);
    ctx.deleteTexture(target);
  });

  test('currency: helpers need the context current here; disposed contexts refuse', () => {
    expect(ctx.release()).toBe(true);
    expect(ctx.isCurrent()).toBe(false);
    expect(() => ctx.createBuffer(4)).toThrow(expect.objectContaining({ name: 'GlError', code: 'GL_NO_CONTEXT' }));
    expect(() => new gl.RegisteredBuffer(1)).toThrow(expect.objectContaining({ code: 'GL_NO_CONTEXT' }));
    ctx.makeCurrent();
    const other = gl.createHeadlessContext();
    expect(other.isCurrent()).toBe(true);
    expect(ctx.isCurrent()).toBe(false);
    other.dispose();
    other.dispose();
    expect(() => other.makeCurrent()).toThrow(expect.objectContaining({ code: 'GL_CONTEXT_DISPOSED' }));
    ctx.makeCurrent();
    expect(ctx.createBuffer(4)).toBeGreaterThan(0);
  });

  test('worker threads make their own contexts (current per thread)', async () => {
    const { Worker } = await import('worker_threads');
    const code = `
      const { parentPort } = require('worker_threads');
      const { gl } = require(${JSON.stringify(DIST)});
      const c = gl.createHeadlessContext();
      const b = c.createBuffer(new Int32Array([5, 6, 7]));
      parentPort.postMessage(Array.from(c.readBuffer(b, new Int32Array(3))));
      c.dispose();`;
    const got = await new Promise((resolve, reject) => {
      const wk = new Worker(code, { eval: true });
      wk.once('message', resolve);
      wk.once('error', reject);
    });
    expect(got).toEqual([5, 6, 7]);
    expect(ctx.isCurrent()).toBe(true); // the main thread's context is untouched
  });
});

const KERNELS = `
__global__ void ramp(float *a, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) a[i] = i * 0.5f; }
__global__ void invert(cudaSurfaceObject_t s, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) { uchar4 p; surf2Dread(&p, s, x * 4, y); surf2Dwrite(make_uchar4(255 - p.x, 255 - p.y, 255 - p.z, p.w), s, x * 4, y); }
}
__global__ void fetch(cudaTextureObject_t t, float *out, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x < w && y < h) out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
}`;

describeGpu('gl: CUDA interop on the GPU', () => {
  let ctx: HeadlessContext;
  let mod: SourceModule;
  beforeAll(() => {
    expect(gl.availability().interop).toBe(true);
    ctx = gl.createHeadlessContext({ device: 0 });
    mod = new SourceModule(KERNELS);
  });
  afterAll(() => ctx?.dispose());

  test('buffer: a kernel writes the mapped memory, GL reads it', () => {
    const n = (1 << 20) + 3;
    const b = ctx.createBuffer(n * 4);
    using reg = new gl.RegisteredBuffer(b, gl.graphicsRegisterFlags.WRITE_DISCARD);
    const m = reg.map();
    const [ptr, bytes] = m.devicePtrAndSize();
    expect(bytes).toBe(n * 4);
    expect(typeof ptr).toBe('bigint');
    mod.getFunction('ramp')(ptr, n, { block: [256], grid: [Math.ceil(n / 256)] });
    m.unmap();
    const out = ctx.readBuffer(b, new Float32Array(n));
    for (const i of [0, 1, 777, n - 1]) expect(out[i]).toBe(i * 0.5);
    expect(out.every((v, i) => v === i * 0.5)).toBe(true);
    ctx.deleteBuffer(b);
  });

  test('buffer: GL writes, CUDA reads through a GPUArray view; the view dies with the mapping', () => {
    const data = Float32Array.from({ length: 4096 }, (_, i) => Math.sin(i));
    const b = ctx.createBuffer(data);
    using reg = new gl.RegisteredBuffer(b, gl.graphicsRegisterFlags.READ_ONLY);
    const m = reg.map();
    const v = m.asGPUArray([64, 64], 'float32');
    expect(v.get()).toEqual(data);
    expect(v.sum().item()).toBeCloseTo(data.reduce((a, x) => a + x, 0), 2);
    expectCode(() => m.asGPUArray([4097], 'float32'), RangeError, 'ERR_OUT_OF_RANGE');
    m.unmap();
    expectCode(() => v.get(), TypeError, 'ERR_USE_AFTER_DISPOSE');
    expectCode(() => m.devicePtrAndSize(), TypeError, 'ERR_NOT_MAPPED');
    expectCode(() => m.unmap(), TypeError, 'ERR_NOT_MAPPED');
    ctx.deleteBuffer(b);
  });

  test('image: CUDA reads the texture, a surface kernel writes it, GL reads the result', () => {
    const [w, h] = [37, 19];
    const px = Uint8Array.from({ length: w * h * 4 }, (_, i) => (i * 13 + 1) & 255);
    const t = ctx.createTexture(w, h, { data: px });
    using reg = new gl.RegisteredImage(t, gl.GL.TEXTURE_2D, gl.graphicsRegisterFlags.SURFACE_LDST);
    const m = reg.map();
    const arr = m.array();
    expect(arr.descriptor).toMatchObject({ width: w, height: h, numChannels: 4, format: driver.arrayFormat.UNSIGNED_INT8 });
    const seen = new Uint8Array(px.length);
    driver.memcpy2D({ src: arr, dst: seen });
    expect(seen).toEqual(px);
    const surf = new driver.SurfaceObject(arr);
    mod.getFunction('invert')(surf.handle, w, h, { block: [16, 16], grid: [3, 2] });
    expectCode(() => m.devicePtrAndSize(), TypeError, 'ERR_NOT_A_BUFFER');
    m.unmap();
    expect(surf.disposed).toBe(true);
    expectCode(() => driver.memcpy2D({ src: arr, dst: seen }), TypeError, 'ERR_USE_AFTER_FREE');
    const want = px.map((v, i) => (i % 4 === 3 ? v : 255 - v));
    expect(ctx.readTexture(t)).toEqual(want);
    ctx.deleteTexture(t);
  });

  test('image: memcpy2D into the mapped array, and a texture object reading it', () => {
    const [w, h] = [16, 8];
    const t = ctx.createTexture(w, h, { internalFormat: gl.GL.R32F, format: gl.GL.RED, type: gl.GL.FLOAT });
    using reg = new gl.RegisteredImage(t);
    const vals = Float32Array.from({ length: w * h }, (_, i) => i - 40.5);
    {
      using m = reg.map();
      const arr = m.array();
      driver.memcpy2D({ src: vals, dst: arr });
      using tex = new driver.TextureObject(arr);
      const out = gpuarray.zeros([h, w], 'float32');
      mod.getFunction('fetch')(tex.handle, out, w, h, { block: [16, 8] });
      expect(out.get()).toEqual(vals);
    } // disposal unmaps
    expect(reg.mapping).toBeNull();
    expect(ctx.readTexture(t, { format: gl.GL.RED, type: gl.GL.FLOAT })).toEqual(vals);
    ctx.deleteTexture(t);
  });

  test('renderbuffer: GL clears it, CUDA reads the colour', () => {
    const rb = ctx.createRenderbuffer(8, 8);
    const fbo = ctx.createFramebuffer(rb, { renderbuffer: true });
    ctx.clear(fbo, [1, 0.5, 0, 1]); // 0.5 * 255 = 127.5: drivers round it to 127 or 128
    ctx.finish();
    using reg = new gl.RegisteredImage(rb, gl.GL.RENDERBUFFER, gl.graphicsRegisterFlags.READ_ONLY);
    using m = reg.map();
    const out = new Uint8Array(8 * 8 * 4);
    driver.memcpy2D({ src: m.array(), dst: out });
    for (let i = 0; i < 64; i++) {
      const px = Array.from(out.subarray(i * 4, i * 4 + 4));
      expect([px[0], px[2], px[3]]).toEqual([255, 0, 255]);
      expect([127, 128]).toContain(px[1]);
    }
    m.unmap();
    ctx.deleteFramebuffer(fbo);
    ctx.deleteRenderbuffer(rb);
  });

  test('mapResources maps several at once on a stream; BufferObject', async () => {
    const stream = new driver.Stream();
    using bo = new gl.BufferObject(1024 * 4, { context: ctx });
    const b2 = ctx.createBuffer(512 * 4);
    using r1 = bo.register();
    using r2 = new gl.RegisteredBuffer(b2);
    const [m1, m2] = gl.mapResources([r1, r2], stream);
    expect(m1.devicePtrAndSize()[1]).toBe(4096);
    expect(m2.devicePtrAndSize()[1]).toBe(2048);
    mod.getFunction('ramp')(m1.devicePtrAndSize()[0], 1024, { block: [256], grid: [4], stream });
    mod.getFunction('ramp')(m2.devicePtrAndSize()[0], 512, { block: [256], grid: [2], stream });
    gl.unmapResources([m1, m2], stream);
    await stream.synchronizeAsync();
    expect(ctx.readBuffer(bo.handle, new Float32Array(1024))[1023]).toBe(511.5);
    expect(ctx.readBuffer(b2, new Float32Array(512))[511]).toBe(255.5);
    ctx.deleteBuffer(b2);
  });

  test('errors: map twice, unmap unmapped, use after unregister, unknown name, no current context', () => {
    const b = ctx.createBuffer(256);
    const reg = new gl.RegisteredBuffer(b);
    const m = reg.map();
    expectCode(() => reg.map(), TypeError, 'ERR_ALREADY_MAPPED');
    expectCode(() => gl.mapResources([reg]), TypeError, 'ERR_ALREADY_MAPPED');
    expectCode(() => m.array(), TypeError, 'ERR_NOT_AN_IMAGE');
    expectCode(() => reg.setMapFlags(gl.graphicsMapFlags.READ_ONLY), TypeError, 'ERR_ALREADY_MAPPED');
    reg.unmap();
    expectCode(() => reg.unmap(), TypeError, 'ERR_NOT_MAPPED');
    reg.setMapFlags(gl.graphicsMapFlags.WRITE_DISCARD);
    reg.map(); // unregister unmaps
    reg.unregister();
    expect(reg.registered).toBe(false);
    expectCode(() => reg.unregister(), TypeError, 'ERR_USE_AFTER_UNREGISTER');
    expectCode(() => reg.map(), TypeError, 'ERR_USE_AFTER_UNREGISTER');
    reg.dispose(); // idempotent
    expect(() => new gl.RegisteredBuffer(987654)).toThrow(CudaError);
    ctx.release();
    expect(() => new gl.RegisteredBuffer(b)).toThrow(expect.objectContaining({ code: 'GL_NO_CONTEXT' }));
    ctx.makeCurrent();
    ctx.deleteBuffer(b);
  });

  test('dropped registrations and mappings are released by the collector', async () => {
    const b = ctx.createBuffer(1 << 16);
    // A settled baseline: earlier tests' garbage (the sum's result, a zeros array) is counted until
    // collected, and the collect() below would free it too (docs/memory.md, memory()).
    await collect();
    const before = memory().liveAllocations;
    (() => {
      for (let i = 0; i < 20; i++) {
        const reg = new gl.RegisteredBuffer(b);
        const m = reg.map();
        m.asGPUArray([1 << 14], 'float32').fill(i);
      }
    })();
    await collect();
    driver.Context.synchronize();
    // Every mapping was undone: GL may read the buffer, and a new registration maps it.
    expect(ctx.readBuffer(b, new Float32Array(4))).toEqual(new Float32Array(4).fill(19));
    using reg = new gl.RegisteredBuffer(b);
    using m = reg.map();
    expect(m.devicePtrAndSize()[1]).toBe(1 << 16);
    expect(memory().liveAllocations).toBe(before);
    ctx.deleteBuffer(b);
  });
});
