/**
 * Kernel launches on a real GPU: argument conversion for every scalar dtype (known and unknown
 * signatures), pointers, In/Out/InOut, launch-option checks, modules and globals, prepare(),
 * function attributes and occupancy, streams, compile caching and errors, and no leaks.
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import * as cuda from '../lib';
import {
  CudaError, DTYPES, NvrtcError, SourceModule, compiler, driver, floatToBf16Bits, floatToHalfBits,
} from '../lib';
import type { DTypeName, ScalarFactory } from '../lib';
import { native } from '../lib/cuda/native';
import { collect, describeGpu, expectCode } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, BigInt } = globalThis;

type DeviceAllocation = ReturnType<typeof driver.memAlloc>;
type Fn = ReturnType<SourceModule['getFunction']>;

const SRC = `
__global__ void scale(float *a, float s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= s;
}
__global__ void isnull(int *p, int *out) { out[0] = p == 0 ? 1 : 2; }
__global__ void add(const float *a, const float *b, float *c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];
}
__global__ void twice(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.0f;
}
__global__ void upper(const char *in, char *out, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) { char c = in[i]; out[i] = (c >= 'a' && c <= 'z') ? c - 32 : c; }
}
__global__ void slowfill(int *out, long long cycles) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
  out[threadIdx.x] = 7 + threadIdx.x;
}
__device__ int g[4];
__global__ void readg(int *out) { int i = threadIdx.x; if (i < 4) out[i] = g[i] * 2; }
__global__ void rev(float *a) {
  __shared__ float s[256];
  int t = threadIdx.x;
  s[t] = a[t];
  __syncthreads();
  a[t] = s[255 - t];
}
__global__ void dyn(float *out, int n) {
  extern __shared__ float sh[];
  for (int i = threadIdx.x; i < n; i += blockDim.x) sh[i] = (float)i;
  __syncthreads();
  for (int i = threadIdx.x; i < n; i += blockDim.x) out[i] = sh[n - 1 - i];
}`;

/** One value per scalar dtype, the C type, and what the kernel must write back. */
const SCALARS: Array<{ name: DTypeName; ctype: string; value: number | bigint | boolean; want: number | bigint }> = [
  { name: 'bool', ctype: 'bool', value: true, want: 1 },
  { name: 'int8', ctype: 'signed char', value: -100, want: -100 },
  { name: 'uint8', ctype: 'unsigned char', value: 200, want: 200 },
  { name: 'int16', ctype: 'short', value: -30000, want: -30000 },
  { name: 'uint16', ctype: 'unsigned short', value: 60000, want: 60000 },
  { name: 'int32', ctype: 'int', value: -2000000000, want: -2000000000 },
  { name: 'uint32', ctype: 'unsigned int', value: 4000000000, want: 4000000000 },
  { name: 'int64', ctype: 'long long', value: -(2n ** 62n) - 5n, want: -(2n ** 62n) - 5n },
  { name: 'uint64', ctype: 'unsigned long long', value: 2n ** 64n - 3n, want: 2n ** 64n - 3n },
  { name: 'float16', ctype: '__half', value: 0.1, want: floatToHalfBits(0.1) },
  { name: 'bfloat16', ctype: '__nv_bfloat16', value: 0.1, want: floatToBf16Bits(0.1) },
  { name: 'float32', ctype: 'float', value: 0.1, want: Math.fround(0.1) },
  { name: 'float64', ctype: 'double', value: Math.PI, want: Math.PI },
];
const FACTORY: Record<string, ScalarFactory> = {
  bool: cuda.bool, int8: cuda.int8, uint8: cuda.uint8, int16: cuda.int16, uint16: cuda.uint16,
  int32: cuda.int32, uint32: cuda.uint32, int64: cuda.int64, uint64: cuda.uint64,
  float16: cuda.float16, bfloat16: cuda.bfloat16, float32: cuda.float32, float64: cuda.float64,
};
// A signed char before the value and a pointer after it check the parameter layout (alignment).
// No headers: NVRTC has no cuda_fp16.h of its own, so __half and __nv_bfloat16 are declared here (2 bytes, align 2).
const PUT_SRC = 'struct __align__(2) __half { unsigned short x; };\nstruct __align__(2) __nv_bfloat16 { unsigned short x; };\n' + SCALARS.map(({ name, ctype: t }) =>
  `__global__ void put_${name}(${t} *out, signed char pad, ${t} v, signed char *padOut) { out[0] = v; padOut[0] = pad; }`,
).join('\n');

const N = 1000;
const block = [256], grid = [Math.ceil(N / 256)];
const ramp = () => Float32Array.from({ length: N }, (_, i) => i * 0.37 - 100);

describeGpu('launch', () => {
  const allocs: DeviceAllocation[] = [];
  const alloc = (bytes: number): DeviceAllocation => {
    const a = driver.memAlloc(bytes);
    allocs.push(a);
    return a;
  };
  /** Device copy of a host array. */
  const upload = (h: Float32Array | Int32Array): DeviceAllocation => {
    const a = alloc(h.byteLength);
    driver.memcpyHtod(a, h);
    return a;
  };
  const download = (a: DeviceAllocation, n = N): Float32Array => {
    const h = new Float32Array(n);
    driver.memcpyDtoh(h, a);
    return h;
  };
  let baseline = { liveAllocations: 0, liveBytes: 0 };
  let mod: SourceModule, put: SourceModule, raw: InstanceType<typeof driver.Module>;
  let fn: (name: string) => Fn;

  beforeAll(async () => {
    await collect();
    const m = cuda.memory();
    baseline = { liveAllocations: m.liveAllocations, liveBytes: m.liveBytes };
    mod = new SourceModule(SRC);
    put = new SourceModule(PUT_SRC);
    const [major, minor] = new driver.Device(0).computeCapability();
    raw = driver.moduleFromBuffer(compiler.compile(PUT_SRC + SRC, { arch: `sm_${major}${minor}` }).image);
    fn = (name) => mod.getFunction(name);
  });
  afterEach(() => {
    for (const a of allocs.splice(0)) a.free();
  });

  describe('scalars', () => {
    test('plain numbers convert to the declared float and int types', () => {
      const h = ramp(), a = upload(h);
      fn('scale')(a, 0.1, N - 3, { block, grid }); // n < N: the last three stay
      const want = h.map((x, i) => (i < N - 3 ? Math.fround(x * Math.fround(0.1)) : x));
      expect(download(a)).toEqual(want);
    });
    test('wrapped scalars float32(2), int32(n)', () => {
      const h = ramp(), a = upload(h);
      fn('scale')(a, cuda.float32(2), cuda.int32(N), { block, grid });
      expect(download(a)).toEqual(h.map((x) => x * 2));
    });

    const modes = ['plain (known signature)', 'wrapped (known signature)', 'wrapped (unknown signature)'];
    describe.each(modes)('every dtype, %s', (mode) => {
      test.each(SCALARS)('$name', ({ name, value, want }) => {
        const dt = DTYPES[name];
        const wrap = mode.startsWith('wrapped');
        const k = (mode.includes('unknown') ? raw : put).getFunction(`put_${name}`);
        const out = alloc(8), padOut = alloc(1);
        driver.memsetD8(out, 0x55, 8);
        k(out, wrap ? cuda.int8(-7) : -7, wrap ? FACTORY[name](value) : value, padOut, { block: [1] });
        const got = new dt.array(1), pad = new Int8Array(1);
        driver.memcpyDtoh(got, out);
        driver.memcpyDtoh(pad, padOut);
        expect(got[0]).toBe(want);
        expect(pad[0]).toBe(-7);
        // Bytes past the value are untouched (the value has the dtype's width).
        const rest = new Uint8Array(8);
        driver.memcpyDtoh(rest, out);
        expect([...rest.subarray(dt.bytes)]).toEqual(Array(8 - dt.bytes).fill(0x55));
      });
    });
  });

  describe('pointers and host arrays', () => {
    test('DeviceAllocation, bigint address and null; a look-alike {ptr} object is refused', () => {
      const out = new Int32Array(1), p = alloc(4), o = alloc(4);
      const run = (arg: unknown): number => {
        fn('isnull')(arg, o, { block: [1] });
        driver.memcpyDtoh(out, o);
        return out[0];
      };
      expect(run(null)).toBe(1);
      expect(run(p)).toBe(2);
      expect(run(p.ptr)).toBe(2);
      expectCode(() => run({ ptr: p.ptr }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expect(run(0n)).toBe(1);
    });
    test('In, Out, InOut with Float32Array', () => {
      const a = ramp(), b = ramp().map((x) => x * 3), c = new Float32Array(N);
      fn('add')(driver.In(a), driver.In(b), driver.Out(c), N, { block, grid });
      expect(c).toEqual(a.map((x, i) => Math.fround(x + b[i])));
      const d = ramp();
      fn('twice')(driver.InOut(d), N, { block, grid });
      expect(d).toEqual(ramp().map((x) => x * 2));
      expect(a).toEqual(ramp()); // In leaves the host array alone
    });
    test('char* strings through In/Out', () => {
      const src = new TextEncoder().encode('Hello, GPU! ünïcode stays');
      const dst = new Uint8Array(src.length);
      fn('upper')(driver.In(src), driver.Out(dst), src.length, { block: [64] });
      expect(new TextDecoder().decode(dst)).toBe('HELLO, GPU! üNïCODE STAYS');
    });
  });

  describe('argument and option errors', () => {
    test('argument count, types and launch options', () => {
      const a = alloc(4 * N), scale = fn('scale');
      expectCode(() => scale(a, 2, { block: [1] }), TypeError, 'ERR_INVALID_ARG_COUNT');
      expectCode(() => scale(a, 2, 1, 0, { block: [1] }), TypeError, 'ERR_INVALID_ARG_COUNT');
      expectCode(() => scale(5, 2, 1, { block: [1] }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => scale(a, a, 1, { block: [1] }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => scale(a, 2, 1), TypeError, 'ERR_MISSING_OPTION');
      expectCode(() => scale(a, 2, 1, { block: [2048] }), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => scale(a, 2, 1, { block: [32, 32, 2] }), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => scale(a, 2, 1, { block: [1], grid: [0] }), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => scale(a, 2, 1, { block: [1], stream: {} }), TypeError, 'ERR_INVALID_ARG_TYPE');
    });
    test('handles of the wrong kind where a pointer is expected', () => {
      const s = new driver.Stream();
      expectCode(() => fn('isnull')(s, alloc(4), { block: [1] }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => fn('isnull')({}, alloc(4), { block: [1] }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => raw.getFunction('isnull')(s, alloc(4), { block: [1] }), TypeError, 'ERR_INVALID_ARG_TYPE');
      s.dispose();
      const freed = driver.memAlloc(4);
      freed.free();
      expectCode(() => fn('isnull')(freed, alloc(4), { block: [1] }), TypeError, 'ERR_USE_AFTER_FREE');
      // A temporary In() copy made before a bad argument is freed again (checked by the leak test).
      expectCode(() => fn('add')(driver.In(ramp()), {}, driver.Out(new Float32Array(N)), N, { block, grid }),
        TypeError, 'ERR_INVALID_ARG_TYPE');
    });
    test('plain numbers for integer parameters must fit the C type; a Scalar is an explicit (wrapping) cast', () => {
      const out = alloc(8), padOut = alloc(1);
      const bad: Array<[DTypeName, unknown]> = [
        ['int32', 2 ** 31], ['int32', NaN], ['int32', 1.5], ['uint32', -1], ['uint32', 2 ** 32], ['uint8', 256],
        ['int8', -129], ['int16', 32768], ['uint16', -1], ['int64', 0.5], ['uint64', -1], ['int32', 2n ** 31n],
      ];
      for (const [name, v] of bad) {
        const e = expectCode(() => put.getFunction(`put_${name}`)(out, -7, v, padOut, { block: [1] }), RangeError, 'ERR_OUT_OF_RANGE');
        expect(e.message).toContain('"v"'); // names the parameter
      }
      expectCode(() => put.getFunction('put_uint32')(out, 300, 1, padOut, { block: [1] }), RangeError, 'ERR_OUT_OF_RANGE');
      // The explicit cast keeps C's conversion.
      put.getFunction('put_uint32')(out, -7, cuda.uint32(-1), padOut, { block: [1] });
      const got = new Uint32Array(1);
      driver.memcpyDtoh(got, out);
      expect(got[0]).toBe(2 ** 32 - 1);
      // Boundaries are accepted.
      put.getFunction('put_int32')(out, -128, -(2 ** 31), padOut, { block: [1] });
      const i32 = new Int32Array(1);
      driver.memcpyDtoh(i32, out);
      expect(i32[0]).toBe(-(2 ** 31));
    });
    test('native launch checks the element types of the config and parameter arrays', () => {
      const h = native.moduleFunction(mod.handle, 'twice');
      const params = new Uint8Array(16);
      expectCode(() => native.launch(h, null, new Uint8Array(7) as never, params, 12, false), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => native.launch(h, null, new Int32Array(7) as never, params, 12, false), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => native.launch(h, null, new Uint32Array(7), new Float64Array(2) as never, 12, false), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => native.launch(h, null, new Uint32Array(6), params, 12, false), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => native.launch(h, null, new Uint32Array(7), params, 17, false), RangeError, 'ERR_OUT_OF_RANGE');
      expect(fn('scale')).toBeDefined(); // the module still works: later tests launch from it
    });
  });

  describe('modules', () => {
    test('moduleFromBuffer: unknown signature needs wrapped scalars', () => {
      const h = ramp(), a = upload(h), scale = raw.getFunction('scale');
      expect(scale.params).toBeNull();
      const e = expectCode(() => scale(a, 2, N, { block, grid }), TypeError, 'ERR_INVALID_ARG_TYPE');
      expect(e.message).toMatch(/wrap/i);
      scale(a, cuda.float32(3), cuda.int32(N), { block, grid });
      expect(download(a)).toEqual(h.map((x) => Math.fround(x * 3)));
    });
    test('getFunction / getGlobal of missing names', () => {
      expectCode(() => mod.getFunction('nope'), CudaError, 'CUDA_ERROR_NOT_FOUND');
      expectCode(() => mod.getGlobal('nope'), CudaError, 'CUDA_ERROR_NOT_FOUND');
      expectCode(() => raw.getFunction('nope'), CudaError, 'CUDA_ERROR_NOT_FOUND');
    });
    test('getGlobal: a __device__ array written from the host, read by a kernel', () => {
      const [g, bytes] = mod.getGlobal('g');
      expect(bytes).toBe(16);
      expect(g).toBeInstanceOf(driver.DeviceAllocation);
      expect(g.size).toBe(16);
      driver.memcpyHtod(g, new Int32Array([1, 2, 3, -4]));
      const o = alloc(16), out = new Int32Array(4);
      fn('readg')(o, { block: [4] });
      driver.memcpyDtoh(out, o);
      expect([...out]).toEqual([2, 4, 6, -8]);
    });
    test('the same source twice shares the loaded module and both work', () => {
      const m1 = new SourceModule(SRC), m2 = new SourceModule(SRC);
      expect(m2.handle).toBe(m1.handle);
      const h = ramp(), a = upload(h);
      m1.getFunction('twice')(a, N, { block, grid });
      m2.getFunction('twice')(a, N, { block, grid });
      expect(download(a)).toEqual(h.map((x) => x * 4));
    });
    test('SourceModule.compileAsync (fresh source, own disk cache)', async () => {
      const cacheDir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-test-'));
      try {
        const src = `// ${process.pid}-${Date.now()}-${Math.random()}\n` +
          '__global__ void inc(int *a) { a[threadIdx.x] += threadIdx.x; }';
        const m = await SourceModule.compileAsync(src, { cacheDir });
        expect(m).toBeInstanceOf(SourceModule);
        expect(fs.readdirSync(cacheDir).length).toBeGreaterThan(0);
        const a = upload(new Int32Array(32).fill(10)), out = new Int32Array(32);
        m.getFunction('inc')(a, { block: [32] });
        driver.memcpyDtoh(out, a);
        expect([...out]).toEqual(Array.from({ length: 32 }, (_, i) => 10 + i));
      } finally {
        fs.rmSync(cacheDir, { recursive: true, force: true });
      }
    });
    test('compile errors are NvrtcErrors with the log', async () => {
      const bad = '__global__ void k(int *a) { a[0] = oops; }';
      let caught: unknown;
      try {
        new SourceModule(bad);
      } catch (e) {
        caught = e;
      }
      expect(caught).toBeInstanceOf(NvrtcError);
      expect((caught as NvrtcError).code).toBe('NVRTC_ERROR_COMPILATION');
      expect((caught as NvrtcError).log).toMatch(/oops/);
      await expect(SourceModule.compileAsync(bad)).rejects.toBeInstanceOf(NvrtcError);
    });
  });

  describe('prepare', () => {
    test('preparedCall and preparedAsyncCall', async () => {
      const scale = fn('scale');
      expect(scale.prepare('PfI')).toBe(scale);
      const h = ramp(), a = upload(h);
      scale.preparedCall(grid, block, a, 2, N);
      expect(download(a)).toEqual(h.map((x) => x * 2));
      const s = new driver.Stream();
      scale.preparedAsyncCall(grid, block, s, a, 0.5, N);
      await s.synchronizeAsync();
      expect(download(a)).toEqual(h);
      s.dispose();
      expectCode(() => scale.preparedCall(grid, block, a, 2), TypeError, 'ERR_INVALID_ARG_COUNT');
    });
    test('unknown letters are refused', () => {
      expect(() => fn('scale').prepare('Pz')).toThrow(TypeError);
    });
  });

  describe('attributes and occupancy', () => {
    test('static attributes', () => {
      const scale = fn('scale'), r = fn('rev');
      expect(scale.numRegs).toBeGreaterThanOrEqual(1);
      expect(scale.getAttribute('numRegs')).toBe(scale.numRegs);
      expect(scale.maxThreadsPerBlock).toBeGreaterThan(0);
      expect(scale.maxThreadsPerBlock).toBeLessThanOrEqual(1024);
      expect(scale.localSizeBytes).toBeGreaterThanOrEqual(0);
      expect(scale.sharedSizeBytes).toBe(0);
      expect(r.sharedSizeBytes).toBeGreaterThanOrEqual(1024);
      const h = Float32Array.from({ length: 256 }, (_, i) => i), a = upload(h);
      r(a, { block: [256] });
      expect(download(a, 256)).toEqual(h.map((_, i) => 255 - i));
    });
    test('MAX_DYNAMIC_SHARED_SIZE_BYTES opt-in lets a launch use 64 KiB', () => {
      const n = 16384, bytes = 4 * n, d = fn('dyn'), o = alloc(bytes);
      expect(() => d(o, n, { block: [256], shared: bytes })).toThrow(CudaError); // over the 48 KiB default
      d.setAttribute('MAX_DYNAMIC_SHARED_SIZE_BYTES', bytes);
      expect(d.getAttribute('maxDynamicSharedSizeBytes')).toBe(bytes);
      d(o, n, { block: [256], shared: bytes });
      expect(download(o, n)).toEqual(Float32Array.from({ length: n }, (_, i) => n - 1 - i));
    });
    test('occupancy helpers', () => {
      const scale = fn('scale');
      expect(scale.maxActiveBlocksPerMultiprocessor(256)).toBeGreaterThanOrEqual(1);
      const [minGrid, size] = scale.maxPotentialBlockSize();
      expect(minGrid).toBeGreaterThan(0);
      expect(size).toBeGreaterThan(0);
      expect(size).toBeLessThanOrEqual(1024);
    });
  });

  test('launch on a Stream', async () => {
    const s = new driver.Stream();
    const h = ramp(), a = upload(h);
    fn('scale')(a, 3, N, { block, grid, stream: s });
    await s.synchronizeAsync();
    expect(download(a)).toEqual(h.map((x) => Math.fround(x * 3)));
    s.dispose();
  });

  test('Out() with a non-blocking stream copies back after the kernel ran', () => {
    const s = new driver.Stream(driver.streamFlags.NON_BLOCKING);
    const out = new Int32Array(32);
    const cycles = BigInt(Math.round((new driver.Device(0).getAttribute('CLOCK_RATE') || 2e6) * 100)); // ~100 ms
    fn('slowfill')(driver.Out(out), cycles, { block: [32], stream: s });
    expect([...out]).toEqual(Array.from({ length: 32 }, (_, i) => 7 + i));
    s.dispose();
  });

  test('after the errors: launches still work and nothing leaked', async () => {
    const h = ramp(), a = upload(h);
    fn('twice')(a, N, { block, grid });
    expect(download(a)).toEqual(h.map((x) => x * 2));
    for (const x of allocs.splice(0)) x.free();
    await collect();
    const m = cuda.memory();
    expect({ liveAllocations: m.liveAllocations, liveBytes: m.liveBytes }).toEqual(baseline);
  });
});
