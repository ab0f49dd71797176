/**
 * Devices for arrays (docs/multigpu.md, "Devices and peers"): withDevice scopes, `{ device }` on
 * creation functions, a.device, a.to(), a.copyTo(), canAccessPeer, Context.enablePeerAccess, and
 * ERR_DEVICE_MISMATCH. Argument errors and the scope semantics run everywhere; the GPU suites need
 * one GPU; the cross-device suite needs two and says so when it is skipped.
 */
import * as cuda from '../lib';
import { driver, gpuarray, random, withDevice } from '../lib';
import type { GPUArray } from '../lib';
import { deviceMismatch } from '../lib/array/devices';
import { runScoped, scopeDevice } from '../lib/cuda/scope';
import { native } from '../lib/cuda/native';
import { collect, describeGpu, expectCode, hasGpu, settledLive } from './helpers';

const f32 = (xs: number[]): Float32Array => Float32Array.from(xs);
const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

async function expectRejectCode(p: Promise<unknown>, cls: new (...args: never[]) => Error, code: string): Promise<void> {
  let caught: unknown;
  try {
    await p;
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(cls);
  expect((caught as { code?: string }).code).toBe(code);
}

describe('device arguments (no GPU needed)', () => {
  const fn = (): number => 1;
  test('withDevice: bad device or callback → TypeError/RangeError with code, before any driver call', () => {
    expectCode(() => withDevice('1' as unknown as number, fn), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => withDevice(null as unknown as number, fn), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => withDevice(-1, fn), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => withDevice(1.5, fn), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => withDevice(0, 'f' as unknown as () => void), TypeError, 'ERR_INVALID_ARG_TYPE');
    expect(driver.withDevice).toBe(withDevice);
  });
  test('{ device } of creation functions and random draws is checked first', async () => {
    const bad = { device: 'gpu1' as unknown as number };
    expectCode(() => gpuarray.zeros(3, 'float32', bad), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.empty(3, 'float32', bad), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.ones(3, 'float32', bad), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.full(3, 1, 'float32', bad), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => gpuarray.arange(0, 3, 1, 'float32', { device: -2 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.linspace(0, 1, 5, { device: 0.5 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => gpuarray.toGpu(f32([1]), bad), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => random.rand(3, 'float32', bad), TypeError, 'ERR_INVALID_ARG_TYPE');
    await expectRejectCode(gpuarray.toGpuAsync(f32([1]), bad), TypeError, 'ERR_INVALID_ARG_TYPE');
  });
  test('canAccessPeer, enablePeerAccess, useDevice: argument types', () => {
    expectCode(() => driver.canAccessPeer('0' as unknown as number, 0), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.canAccessPeer(0, -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => driver.Context.enablePeerAccess({} as unknown as number), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.Context.enablePeerAccess(0, 1 as unknown as InstanceType<typeof driver.Context>), TypeError,
      'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.useDevice('1' as unknown as number), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => driver.useDevice(-1), RangeError, 'ERR_OUT_OF_RANGE');
  });
  test('ERR_DEVICE_MISMATCH names both devices (arrays of two devices, or an array off the current device)', () => {
    const two = deviceMismatch('add', 0, 1);
    expect(two).toBeInstanceOf(TypeError);
    expect(two.code).toBe('ERR_DEVICE_MISMATCH');
    expect(two.devices).toEqual([0, 1]);
    expect(two.message).toMatch(/^add: .*device 0 and device 1/);
    const cur = deviceMismatch('sum', 3, 1, true);
    expect(cur.devices).toEqual([3, 1]);
    expect(cur.message).toMatch(/device 3 but the current device is 1.*withDevice\(3/);
    expect(deviceMismatch('take', 2, 2).message).toMatch(/two different contexts of device 2/);
    expect(deviceMismatch('take', 2, 2, true).message).toMatch(/another context of device 2/);
  });
});

describe('withDevice scopes follow async work (no GPU needed: the scope itself)', () => {
  test('an async scope keeps its device across awaits and timers; interleaved code keeps its own', async () => {
    expect(scopeDevice()).toBe(0);
    const seen: Array<[string, number]> = [];
    const a = runScoped(5, async () => {
      seen.push(['a0', scopeDevice()]);
      await tick();
      seen.push(['a1', scopeDevice()]);
      await new Promise<void>((r) => setImmediate(() => { seen.push(['a-cb', scopeDevice()]); r(); }));
      return runScoped(6, async () => { await tick(); return scopeDevice(); });
    });
    const b = runScoped(7, async () => {
      await tick();
      seen.push(['b1', scopeDevice()]);
    });
    seen.push(['outside', scopeDevice()]);
    const [inner] = await Promise.all([a, b]);
    expect(inner).toBe(6);
    expect(Object.fromEntries(seen)).toEqual({ a0: 5, a1: 5, 'a-cb': 5, b1: 7, outside: 0 });
    expect(scopeDevice()).toBe(0);
  });
  test('a sync scope ends when it returns or throws', () => {
    expect(runScoped(3, () => scopeDevice())).toBe(3);
    expect(() => runScoped(3, () => { throw new Error('x'); })).toThrow('x');
    expect(scopeDevice()).toBe(0);
  });
});

describeGpu('devices for arrays, one GPU (GPU)', () => {
  let baseline = 0;
  const count = hasGpu ? driver.Device.count() : 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  test('{ device: 0 } and driver.Device(0) on every creation function; a.device', async () => {
    const dev0 = new driver.Device(0);
    cuda.tidy(() => {
      const made: GPUArray[] = [
        gpuarray.toGpu(f32([1, 2, 3]), { device: 0 }),
        gpuarray.empty(3, 'float32', { device: dev0 }),
        gpuarray.zeros(3, 'float32', { device: 0 }),
        gpuarray.ones(3, 'float32', { device: 0 }),
        gpuarray.full(3, 7, 'float32', { device: 0 }),
        gpuarray.arange(0, 3, 1, 'float32', { device: 0 }),
        gpuarray.linspace(0, 1, 3, { device: 0, dtype: 'float32' }),
        random.rand(3, 'float32', { device: 0 }),
        random.randn(3, 'float32', { device: dev0 }),
        new random.Generator({ seed: 1 }).uniform(3, { device: 0 }),
      ];
      for (const a of made) expect(a.device).toBe(0);
      expect(Array.from(made[0].get() as Float32Array)).toEqual([1, 2, 3]);
      expect(Array.from(made[3].get() as Float32Array)).toEqual([1, 1, 1]);
      expect(Array.from(made[4].get() as Float32Array)).toEqual([7, 7, 7]);
      const like = gpuarray.zerosLike(made[0]);
      expect(like.device).toBe(0);
      expect(gpuarray.onesLike(made[0], 'int32', { device: 0 }).get()).toEqual(Int32Array.from([1, 1, 1]));
    });
    const a = await gpuarray.toGpuAsync([1, 2], { device: 0, dtype: 'int32' });
    expect(a.device).toBe(0);
    expect(a.get()).toEqual(Int32Array.from([1, 2]));
    a.dispose();
  });

  test('withDevice(0, fn): sync and async, nested, Device objects, useDevice inside a scope', async () => {
    const r = withDevice(0, () => {
      expect(driver.getDevice()).toBe(0);
      return gpuarray.arange(4, undefined, 1, 'float32').mul(2);
    });
    expect(r.device).toBe(0);
    expect(Array.from(r.get() as Float32Array)).toEqual([0, 2, 4, 6]);
    r.dispose();
    const v = await withDevice(new driver.Device(0), async () => {
      await tick();
      const x = await gpuarray.toGpuAsync(f32([1, 2]));
      await tick();
      const y = withDevice(0, () => { driver.useDevice(0); return x.add(1); });
      const out = Array.from(await y.getAsync() as Float32Array);
      x.dispose();
      y.dispose();
      return [driver.getDevice(), ...out];
    });
    expect(v).toEqual([0, 2, 3]);
    expect(driver.getDevice()).toBe(0);
    // A device that does not exist, with the count in the message.
    const e = expectCode(() => withDevice(count, () => 1), RangeError, 'ERR_OUT_OF_RANGE');
    expect(e.message).toContain(`${count} device(s) visible`);
    expectCode(() => gpuarray.zeros(2, 'float32', { device: count }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => random.rand(2, 'float32', { device: count + 3 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => driver.useDevice(count), RangeError, 'ERR_OUT_OF_RANGE');
    expect(driver.getDevice()).toBe(0);
  });

  test('a.to(0): the array itself; { copy: true } a new C-contiguous array; copyTo on one device', () => {
    cuda.tidy(() => {
      const a = gpuarray.toGpu(f32([1, 2, 3, 4, 5, 6]), { shape: [2, 3] });
      expect(a.to(0)).toBe(a);
      expect(a.to(new driver.Device(0))).toBe(a);
      const t = a.T;
      const c = t.to(0, { copy: true });
      expect(c).not.toBe(t);
      expect(c.device).toBe(0);
      expect(c.flags.cContiguous).toBe(true);
      expect(c.toArray()).toEqual([[1, 4], [2, 5], [3, 6]]);
      const dst = gpuarray.zeros([2, 3], 'float64');
      expect(a.copyTo(dst)).toBe(dst);
      expect(dst.toArray()).toEqual([[1, 2, 3], [4, 5, 6]]);
      expectCode(() => a.to(count), RangeError, 'ERR_OUT_OF_RANGE');
      expectCode(() => a.to('0' as unknown as number), TypeError, 'ERR_INVALID_ARG_TYPE');
      expectCode(() => a.copyTo(f32([1]) as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    });
  });

  test('canAccessPeer(0, 0) is true; enablePeerAccess with itself is a no-op (and idempotent)', () => {
    expect(driver.canAccessPeer(0, 0)).toBe(true);
    expect(driver.canAccessPeer(new driver.Device(0), 0)).toBe(true);
    expectCode(() => driver.canAccessPeer(0, count), RangeError, 'ERR_OUT_OF_RANGE');
    driver.Context.enablePeerAccess(0);
    driver.Context.enablePeerAccess(driver.Context.getCurrent());
    driver.Context.enablePeerAccess(new driver.Device(0), driver.Context.getCurrent());
    expectCode(() => driver.Context.enablePeerAccess(count), RangeError, 'ERR_OUT_OF_RANGE');
  });

  test('native memcpyPeer 0 → 0 on explicit streams of both sides; a stream of another context is refused', async () => {
    const s1 = new driver.Stream(), s2 = new driver.Stream();
    const a = gpuarray.toGpu(Float32Array.from({ length: 1 << 16 }, (_, i) => i * 0.5));
    const b = gpuarray.full(1 << 16, -1, 'float32');
    native.memcpyPeer(b.ptr, 0, a.ptr, 0, a.nbytes, s1.handle, s2.handle, false);
    s1.synchronize();
    expect(b.get()).toEqual(a.get());
    const c = gpuarray.zeros(1 << 16, 'float32');
    await native.memcpyPeer(c.ptr, 0, a.ptr, 0, a.nbytes, null, null, true);
    expect(c.get()).toEqual(a.get());
    const ctx = new driver.Device(0).makeContext();
    let foreign: InstanceType<typeof driver.Stream>;
    try {
      foreign = new driver.Stream();
    } finally {
      driver.Context.pop();
    }
    expectCode(() => native.memcpyPeer(b.ptr, 0, a.ptr, 0, 4, foreign.handle, null, false), TypeError, 'ERR_DEVICE_MISMATCH');
    expectCode(() => native.memcpyPeer(b.ptr, 0, a.ptr, 0, 4, null, foreign.handle, false), TypeError, 'ERR_DEVICE_MISMATCH');
    expectCode(() => native.memcpyPeer(b.ptr, count, a.ptr, 0, 4, null, null, false), RangeError, 'ERR_OUT_OF_RANGE');
    foreign!.dispose();
    expect(ctx).toBeInstanceOf(driver.Context);
    for (const x of [a, b, c]) x.dispose();
    s1.dispose();
    s2.dispose();
  });

  test('an array off the current context: operations refuse it (naming the device), transfers still work', () => {
    const ctx = new driver.Device(0).makeContext();
    let b: GPUArray;
    try {
      b = gpuarray.toGpu(f32([4, 5, 6]));
    } finally {
      driver.Context.pop();
    }
    expect(ctx).toBeInstanceOf(driver.Context);
    expect(b.device).toBe(0);
    const gen = new random.Generator({ seed: 2 });
    for (const op of [() => b.add(1), () => b.fill(0), () => gpuarray.sum(b), () => gpuarray.cumsum(b), () => gen.fillUniform(b)]) {
      const e = expectCode(op, TypeError, 'ERR_DEVICE_MISMATCH') as Error & { devices: number[] };
      expect(e.message).toMatch(/another context of device 0/);
      expect(e.devices).toEqual([0, 0]);
    }
    expect(Array.from(b.get() as Float32Array)).toEqual([4, 5, 6]);
    expectCode(() => b.to(0, { copy: true }), TypeError, 'ERR_DEVICE_MISMATCH');
    b.dispose();
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(settledLive()).toBe(baseline);
  });
});

// Two or more GPUs: the cross-device paths. Skipped, with the reason in the title, otherwise.
const deviceCount = hasGpu ? driver.Device.count() : 0;
const describeMulti = deviceCount >= 2 ? describe : describe.skip;
describeMulti(`two devices (GPU)${deviceCount >= 2 ? '' : ` [skipped: needs 2 GPUs, ${deviceCount} visible]`}`, () => {
  test('a.to(1) copies across (values, device, contiguity); the source keeps working', async () => {
    const a = gpuarray.toGpu(Float32Array.from({ length: (1 << 20) + 3 }, (_, i) => i % 977));
    const b = a.to(1);
    expect(b.device).toBe(1);
    expect(b.get()).toEqual(a.get());
    const t = gpuarray.toGpu(f32([1, 2, 3, 4, 5, 6]), { shape: [2, 3] }).T;
    const tb = t.to(1);
    expect(tb.flags.cContiguous).toBe(true);
    expect(tb.toArray()).toEqual([[1, 4], [2, 5], [3, 6]]);
    const back = withDevice(1, () => b.mul(2)).to(0);
    expect(back.device).toBe(0);
    expect(back.get()).toEqual(a.mul(2).get());
    const s = withDevice(1, () => new driver.Stream());
    const viaStream = a.to(1, { stream: s });
    await s.synchronizeAsync();
    expect(viaStream.get()).toEqual(a.get());
    for (const x of [a, b, t.base!, tb, back, viaStream]) x.dispose();
  });

  test('mixing devices → ERR_DEVICE_MISMATCH naming both; an array off the current device too', () => {
    const a = gpuarray.toGpu(f32([1, 2, 3]), { device: 0 });
    const b = gpuarray.toGpu(f32([4, 5, 6]), { device: 1 });
    const e = expectCode(() => a.add(b), TypeError, 'ERR_DEVICE_MISMATCH') as Error & { devices: number[] };
    expect(e.devices).toEqual([0, 1]);
    expect(e.message).toMatch(/device 0 and device 1/);
    expectCode(() => gpuarray.concatenate([a, b]), TypeError, 'ERR_DEVICE_MISMATCH');
    expectCode(() => gpuarray.dot(a, b), TypeError, 'ERR_DEVICE_MISMATCH');
    expectCode(() => a.add(1, { out: b }), TypeError, 'ERR_DEVICE_MISMATCH');
    const off = expectCode(() => b.add(1), TypeError, 'ERR_DEVICE_MISMATCH');
    expect(off.message).toMatch(/device 1 but the current device is 0/);
    expect(Array.from(withDevice(1, () => b.add(a.to(1))).get() as Float32Array)).toEqual([5, 7, 9]);
    // Host transfers and copies work from any device.
    expect(Array.from(b.get() as Float32Array)).toEqual([4, 5, 6]);
    b.set(a);
    expect(Array.from(b.get() as Float32Array)).toEqual([1, 2, 3]);
    const c = withDevice(1, () => gpuarray.zeros(3, 'float64'));
    a.copyTo(c);
    expect(Array.from(c.get() as Float64Array)).toEqual([1, 2, 3]);
    for (const x of [a, b, c]) x.dispose();
  });

  test('concurrent async scopes on devices 0 and 1 keep their devices', async () => {
    const work = (d: number) => withDevice(d, async () => {
      const out: number[] = [];
      for (let i = 0; i < 5; i++) {
        await tick();
        const x = gpuarray.arange(0, 8, 1, 'float32');
        out.push(x.device, (await x.add(d).sum().getAsync() as Float32Array)[0]);
        x.dispose();
      }
      return out;
    });
    const [r0, r1] = await Promise.all([work(0), work(1)]);
    expect(r0).toEqual(Array(5).fill([0, 28]).flat());
    expect(r1).toEqual(Array(5).fill([1, 36]).flat());
  });

  test('peer access: a kernel on device 0 reads pool memory of device 1 after enablePeerAccess', () => {
    if (!driver.canAccessPeer(0, 1)) {
      expect(driver.canAccessPeer(1, 0)).toBe(false); // not peers on this machine: nothing to test
      return;
    }
    driver.Context.enablePeerAccess(1); // from device 0 (the current one)
    driver.Context.enablePeerAccess(1); // idempotent
    const src = gpuarray.toGpu(f32([1, 2, 3, 4]), { device: 1 });
    const dst = gpuarray.zeros(4, 'float32');
    const mod = new cuda.SourceModule('__global__ void cp(float *d, const float *s) { d[threadIdx.x] = s[threadIdx.x] + 1; }');
    mod.getFunction('cp')(dst, src.ptr, { block: [4] });
    expect(Array.from(dst.get() as Float32Array)).toEqual([2, 3, 4, 5]);
    src.dispose();
    dst.dispose();
  });
});
