/**
 * driver layer on a real GPU: devices, contexts, allocations, copies (direct, staged, async,
 * page-locked), memset, streams, events, and that async waits leave the event loop free.
 */
import { randomFillSync } from 'crypto';
import * as cuda from '../lib';
import { CudaError, SourceModule, driver } from '../lib';
import { collect, describeGpu, expectCode } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number, BigInt } = globalThis;

type DeviceAllocation = ReturnType<typeof driver.memAlloc>;
type Host = ArrayBuffer | ArrayBufferView;

const bytesOf = (h: Host): Buffer =>
  ArrayBuffer.isView(h) ? Buffer.from(h.buffer, h.byteOffset, h.byteLength) : Buffer.from(h);

/** Random bytes into `h`; returns h. */
function randomize<T extends Host>(h: T): T {
  randomFillSync(bytesOf(h));
  return h;
}

/** Fills `dst` with the complement of `src`'s bytes, so every byte must change in a copy. */
function poison(dst: Host, src: Host): void {
  const d = bytesOf(dst), s = bytesOf(src);
  for (let i = 0; i < d.length; i++) d[i] = ~s[i] & 0xff;
}

/** Asserts byte equality, reporting the first differing offset. */
function expectSameBytes(actual: Host, expected: Host): void {
  const a = bytesOf(actual), e = bytesOf(expected);
  expect(a.length).toBe(e.length);
  let first = -1;
  if (!a.equals(e)) for (let i = 0; i < a.length && first < 0; i++) if (a[i] !== e[i]) first = i;
  expect(first).toBe(-1);
}

/** Host buffer kinds; `make(n)` gives n elements (bytes for the untyped kinds). */
const KINDS: Array<[string, (n: number) => Host]> = [
  ...([Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array,
    Float32Array, Float64Array, BigInt64Array, BigUint64Array] as Array<new (n: number) => ArrayBufferView>).map(
    (C): [string, (n: number) => Host] => [C.name, (n) => new C(n)]),
  ['DataView', (n) => new DataView(new ArrayBuffer(n + 24), 8, n)],
  ['Buffer', (n) => Buffer.allocUnsafe(n)], // small ones come from the pool: byteOffset ≠ 0
  ['ArrayBuffer', (n) => new ArrayBuffer(n)],
  ['Float32Array subarray', (n) => new Float32Array(n + 5).subarray(3, 3 + n)],
];
const SIZES = [0, 1, 31, 4099];

const SPIN_SRC = `
__global__ void spin(long long cycles, int *out, int value) {
  long long start = clock64();
  while (clock64() - start < cycles) { }
  if (out) *out = value;
}`;

describeGpu('driver', () => {
  const allocs: DeviceAllocation[] = [];
  const alloc = (bytes: number): DeviceAllocation => {
    const a = driver.memAlloc(bytes);
    allocs.push(a);
    return a;
  };
  let baseline = 0;
  let spinFn: ReturnType<SourceModule['getFunction']>;
  let khz = 0;
  /** Queues a kernel that spins about `ms` milliseconds, then writes `value` to `out`. */
  const spin = (ms: number, out: DeviceAllocation | null, value: number, stream?: InstanceType<typeof driver.Stream>) =>
    spinFn(BigInt(Math.round(khz * ms)), out, value, { block: [1], stream });

  beforeAll(async () => {
    await collect();
    baseline = cuda.memory().liveAllocations;
    spinFn = new SourceModule(SPIN_SRC).getFunction('spin');
    khz = new driver.Device(0).getAttribute('CLOCK_RATE') || 2_000_000;
  });
  afterEach(() => {
    for (const a of allocs.splice(0)) a.free();
  });

  describe('Device', () => {
    const dev = () => new driver.Device(0);
    test('count, name, compute capability, memory, PCI bus id', () => {
      expect(driver.Device.count()).toBeGreaterThanOrEqual(1);
      expect(typeof dev().name()).toBe('string');
      expect(dev().name().length).toBeGreaterThan(0);
      const [major, minor] = dev().computeCapability();
      expect(major).toBeGreaterThanOrEqual(7);
      expect(Number.isInteger(minor) && minor >= 0).toBe(true);
      expect(dev().totalMemory()).toBeGreaterThan(1e9);
      expect(dev().pciBusId()).toMatch(/^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\.[0-9a-f]$/i);
    });
    test('attributes by enum name, camelCase name and number; getAttributes()', () => {
      expect(dev().getAttribute('MAX_THREADS_PER_BLOCK')).toBe(1024);
      expect(dev().getAttribute('maxThreadsPerBlock')).toBe(1024);
      expect(dev().getAttribute(1)).toBe(1024);
      const all = dev().getAttributes();
      expect(all.multiprocessorCount).toBeGreaterThan(0);
      expect(all.maxThreadsPerBlock).toBe(1024);
      expect(all.warpSize).toBe(32);
    });
    test('bad ordinals and attribute names', () => {
      expectCode(() => new driver.Device(999), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => new driver.Device(-1), RangeError, 'ERR_OUT_OF_RANGE');
      expect(() => dev().getAttribute('NOT_AN_ATTRIBUTE')).toThrow(TypeError);
    });
  });

  describe('Context', () => {
    test('current context, its device, synchronize', async () => {
      expect(driver.Context.getCurrent()).toBeInstanceOf(driver.Context);
      expect(driver.Context.getDevice().ordinal).toBe(0);
      expect(driver.Context.getCurrent().device().ordinal).toBe(0);
      driver.Context.synchronize();
      await expect(driver.Context.synchronizeAsync()).resolves.toBeUndefined();
    });
    test('makeContext() pushes a usable context; pop() returns to the primary one', () => {
      const ctx = new driver.Device(0).makeContext();
      expect(ctx).toBeInstanceOf(driver.Context);
      let popped: InstanceType<typeof driver.Context> | null;
      try {
        const a = driver.memAlloc(64);
        const src = randomize(new Uint8Array(64)), dst = new Uint8Array(64);
        driver.memcpyHtod(a, src);
        driver.memcpyDtoh(dst, a);
        a.free();
        expectSameBytes(dst, src);
      } finally {
        popped = driver.Context.pop();
      }
      expect(popped).toBeInstanceOf(driver.Context);
      expect(driver.Context.pop()).toBeNull();
      const src = randomize(new Float64Array(100)), dst = new Float64Array(100);
      const b = alloc(800);
      driver.memcpyHtod(b, src);
      driver.memcpyDtoh(dst, b);
      expectSameBytes(dst, src);
    });
    test('memGetInfo', () => {
      const [free, total] = driver.memGetInfo();
      expect(free).toBeGreaterThan(0);
      expect(free).toBeLessThanOrEqual(total);
    });
  });

  describe('DeviceAllocation', () => {
    test('ptr, size, free() idempotent, use after free', () => {
      const a = driver.memAlloc(1024);
      expect(a).toBeInstanceOf(driver.DeviceAllocation);
      expect(typeof a.ptr).toBe('bigint');
      expect(a.ptr).not.toBe(0n);
      expect(a.size).toBe(1024);
      const live = cuda.memory().liveAllocations;
      a.free();
      expect(a.freed).toBe(true);
      expect(cuda.memory().liveAllocations).toBe(live - 1);
      expect(() => a.free()).not.toThrow();
      expect(cuda.memory().liveAllocations).toBe(live - 1);
      expectCode(() => driver.memcpyHtod(a, new Uint8Array(4)), TypeError, 'ERR_USE_AFTER_FREE');
      expectCode(() => driver.memcpyDtoh(new Uint8Array(4), a), TypeError, 'ERR_USE_AFTER_FREE');
    });
    test('Symbol.dispose frees; memAlloc(0) works; bad sizes are refused', () => {
      const a = driver.memAlloc(16);
      const live = cuda.memory().liveAllocations;
      a[Symbol.dispose]();
      expect(a.freed).toBe(true);
      expect(cuda.memory().liveAllocations).toBe(live - 1);
      const z = driver.memAlloc(0);
      expect(z.size).toBe(0);
      driver.memcpyHtod(z, new Uint8Array(0));
      z.free();
      expectCode(() => driver.memAlloc(-1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memAlloc(1.5), RangeError, 'ERR_OUT_OF_RANGE');
    });
  });

  describe('copies', () => {
    const cases = KINDS.flatMap(([name, make]) => SIZES.map((n) => [name, n, make] as const));
    test.each(cases)('round trip %s × %d', (_name, n, make) => {
      const src = randomize(make(n)), dst = make(n);
      poison(dst, src);
      const a = alloc(bytesOf(src).length);
      driver.memcpyHtod(a, src);
      driver.memcpyDtoh(dst, a);
      expectSameBytes(dst, src);
    });

    test('large pageable copies: 2^22+3 floats, 64 MiB + 7 bytes at byteOffset 3 (staged)', () => {
      const f = randomize(new Float32Array(2 ** 22 + 3)), g = new Float32Array(f.length);
      poison(g, f);
      const a = alloc(f.byteLength);
      driver.memcpyHtod(a, f);
      driver.memcpyDtoh(g, a);
      expectSameBytes(g, f);

      const n = (64 << 20) + 7;
      const src = randomize(new Uint8Array(new ArrayBuffer(n + 8), 3, n));
      const dst = new Uint8Array(new ArrayBuffer(n + 8), 5, n);
      poison(dst, src);
      const b = alloc(n), c = alloc(n);
      driver.memcpyHtod(b, src);
      driver.memcpyDtod(c, b, n);
      driver.memcpyDtoh(dst, c);
      expectSameBytes(dst, src);
    });

    test('sizes are checked in both directions', () => {
      const a = alloc(16), b = alloc(64);
      expectCode(() => driver.memcpyHtod(a, new Float32Array(5)), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memcpyDtoh(new Float32Array(5), a), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memcpyDtod(b, a, 32), RangeError, 'ERR_OUT_OF_RANGE');
      // A destination smaller than the source takes the first bytes.
      const src = randomize(new Uint8Array(64)), dst = new Uint8Array(16);
      driver.memcpyHtod(b, src);
      driver.memcpyDtoh(dst, b);
      expectSameBytes(dst, src.subarray(0, 16));
    });

    test('memsetD8/D16/D32 and value ranges', () => {
      const a = alloc(64), out = new Uint8Array(64);
      driver.memsetD8(a, 0, 64);
      driver.memsetD8(a, 0xab, 20);
      driver.memcpyDtoh(out, a);
      expect([...out]).toEqual([...Array(20).fill(0xab), ...Array(44).fill(0)]);
      driver.memsetD16(a, 0xbeef, 8);
      driver.memcpyDtoh(out, a);
      expect([...new Uint16Array(out.buffer, 0, 11)]).toEqual([...Array(8).fill(0xbeef), 0xabab, 0xabab, 0]);
      driver.memsetD32(a, 0xdeadbeef, 16);
      driver.memcpyDtoh(out, a);
      expect([...new Uint32Array(out.buffer)]).toEqual(Array(16).fill(0xdeadbeef));
      expectCode(() => driver.memsetD8(a, 256, 1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memsetD8(a, -1, 1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memsetD16(a, 0x10000, 1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memsetD32(a, 2 ** 32, 1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memsetD32(a, 1.5, 1), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => driver.memsetD32(a, 0, 17), RangeError, 'ERR_OUT_OF_RANGE');
    });
  });

  describe('async copies', () => {
    const cases = [
      ['pageable', 4099], ['pageable', 16 << 20], ['page-locked', 4099], ['page-locked', 16 << 20],
    ].flatMap(([mem, n]) => [false, true].map((own) => [mem as string, n as number, own] as const));
    test.each(cases)('%s, %d floats, own stream: %s', async (mem, n, own) => {
      const pinned = mem === 'page-locked';
      const make = () => (pinned ? driver.pagelockedEmpty(n, 'float32') : new Float32Array(n));
      const src = randomize(make()), dst = make();
      poison(dst, src);
      const stream = own ? new driver.Stream() : undefined;
      const a = alloc(src.byteLength), b = alloc(src.byteLength);
      try {
        // Queued back to back: only stream order makes the result right.
        await Promise.all([
          driver.memcpyHtodAsync(a, src, stream),
          driver.memcpyDtodAsync(b, a, src.byteLength, stream),
          driver.memcpyDtohAsync(dst, b, stream),
        ]);
        expectSameBytes(dst, src);
      } finally {
        stream?.dispose();
        if (pinned) {
          expect(driver.unregisterHostMemory(src)).toBe(true);
          expect(driver.unregisterHostMemory(dst)).toBe(true);
        }
      }
    });

    test('memset*Async on a stream', async () => {
      const s = new driver.Stream();
      const a = alloc(4096), out = new Uint8Array(4096);
      await driver.memsetD32Async(a, 0x01020304, 1024, s);
      await driver.memsetD16Async(a, 0xffff, 10, s);
      await driver.memsetD8Async(a, 7, 3, s);
      await driver.memcpyDtohAsync(out, a, s);
      const want = new Uint8Array(4096);
      new Uint32Array(want.buffer).fill(0x01020304);
      new Uint16Array(want.buffer, 0, 10).fill(0xffff);
      want.fill(7, 0, 3);
      expectSameBytes(out, want);
      s.dispose();
    });
  });

  describe('page-locked memory', () => {
    test('pagelockedEmpty / pagelockedZeros shapes and types', () => {
      const e = driver.pagelockedEmpty([256, 4], 'float32');
      expect(e).toBeInstanceOf(Float32Array);
      expect(e.length).toBe(1024);
      const z = driver.pagelockedZeros(1000, 'int32');
      expect(z).toBeInstanceOf(Int32Array);
      expect(z.length).toBe(1000);
      expect(z.every((v) => v === 0)).toBe(true);
      const d = driver.pagelockedEmpty(8);
      expect(d).toBeInstanceOf(Float64Array);
      for (const h of [e, z, d]) expect(driver.unregisterHostMemory(h)).toBe(true);
    });
    test('registerHostMemory round trip; unregister true then false', () => {
      const h = randomize(new Float32Array(1 << 18));
      expect(driver.registerHostMemory(h)).toBe(h);
      const back = driver.registerHostMemory(new Float32Array(h.length));
      const a = alloc(h.byteLength);
      driver.memcpyHtod(a, h);
      driver.memcpyDtoh(back, a);
      expectSameBytes(back, h);
      expect(driver.unregisterHostMemory(h)).toBe(true);
      expect(driver.unregisterHostMemory(h)).toBe(false);
      expect(driver.unregisterHostMemory(back)).toBe(true);
      expect(driver.unregisterHostMemory(new Float32Array(4))).toBe(false);
    });
  });

  describe('Stream and Event', () => {
    test('Stream: synchronize, isDone, synchronizeAsync', async () => {
      const s = new driver.Stream();
      spin(20, null, 0, s);
      s.synchronize();
      expect(s.isDone()).toBe(true);
      spin(20, null, 0, s);
      await expect(s.synchronizeAsync()).resolves.toBeUndefined();
      expect(s.isDone()).toBe(true);
      s.dispose();
    });
    test('Stream.waitForEvent orders work across streams', async () => {
      const s1 = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const s2 = new driver.Stream(driver.streamFlags.NON_BLOCKING);
      const a = alloc(4), out = new Int32Array(1);
      driver.memsetD32(a, 0, 1);
      driver.Context.synchronize();
      spin(100, a, 42, s1); // writes 42 only after ~100 ms
      const ev = new driver.Event().record(s1);
      s2.waitForEvent(ev);
      await driver.memcpyDtohAsync(out, a, s2);
      expect(out[0]).toBe(42);
      s1.dispose();
      s2.dispose();
    });
    test('dispose is idempotent; a disposed stream is refused', () => {
      const s = new driver.Stream();
      s.dispose();
      expect(() => s.dispose()).not.toThrow();
      expect(() => s[Symbol.dispose]()).not.toThrow();
      expectCode(() => s.synchronize(), TypeError, 'ERR_USE_AFTER_DISPOSE');
      expectCode(() => s.isDone(), TypeError, 'ERR_USE_AFTER_DISPOSE');
      const a = alloc(4);
      expectCode(() => driver.memcpyHtodAsync(a, new Uint8Array(4), s), TypeError, 'ERR_USE_AFTER_DISPOSE');
    });
    test('Event: record returns this, query, synchronize, timeSince/timeTill', async () => {
      const start = new driver.Event(), end = new driver.Event();
      expect(start.record()).toBe(start);
      spin(20, null, 0);
      expect(end.record()).toBe(end);
      expect(end.synchronize()).toBe(end);
      expect(start.query()).toBe(true);
      expect(end.query()).toBe(true);
      const ms = end.timeSince(start);
      expect(ms).toBeGreaterThan(0);
      expect(start.timeTill(end)).toBe(ms);
      const s = new driver.Stream();
      const e = new driver.Event();
      spin(20, null, 0, s);
      e.record(s);
      await expect(e.synchronizeAsync()).resolves.toBeUndefined();
      expect(e.query()).toBe(true);
      s.dispose();
    });
    test('an event without timing cannot be timed', () => {
      const a = new driver.Event(driver.eventFlags.DISABLE_TIMING).record();
      const b = new driver.Event().record();
      b.synchronize();
      a.synchronize();
      expectCode(() => b.timeSince(a), CudaError, 'CUDA_ERROR_INVALID_HANDLE');
      expect(() => b.timeSince({} as InstanceType<typeof driver.Event>)).toThrow(TypeError);
    });
  });

  test('memcpyDtohAsync waits without blocking the event loop', async () => {
    const a = alloc(4), out = new Int32Array(1);
    driver.memsetD32(a, 0, 1);
    spin(200, a, 7);
    const ev = new driver.Event().record();
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    try {
      expect(ev.query()).toBe(false); // the kernel is still running
      await driver.memcpyDtohAsync(out, a);
    } finally {
      clearInterval(timer);
    }
    expect(out[0]).toBe(7);
    expect(ev.query()).toBe(true);
    expect(ticks).toBeGreaterThan(5);
  });

  test('no allocation outlives its test', async () => {
    for (const a of allocs.splice(0)) a.free();
    await collect();
    expect(cuda.memory().liveAllocations).toBe(baseline);
  });
});
