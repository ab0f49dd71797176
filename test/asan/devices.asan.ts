/**
 * Devices for arrays on the CPU driver double with two devices (FAKECUDA_DEVICES=2): peer copies
 * (a.to, a.copyTo, set across devices) with their stream ordering, withDevice scopes (sync and
 * interleaved async), the device checks of operations, canAccessPeer and enablePeerAccess, under
 * AddressSanitizer/UBSan. Kernels do not run on the double: values are checked only where the data
 * moves by copies.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const PRELUDE = `
  const assert = require('assert');
  const nc = require(process.env.NODECUDA_DIST);
  const { driver, gpuarray, withDevice } = nc;
  const fill = (n, k = 1) => Float32Array.from({ length: n }, (_, i) => (i * k) % 1000);
  const same = (a, b) => assert.deepStrictEqual(Buffer.from(a.buffer, a.byteOffset, a.byteLength), Buffer.from(b.buffer, b.byteOffset, b.byteLength));
  const err = (f) => { try { f(); } catch (e) { return [e.code, e.devices ?? null, e.message]; } return null; };
  const tick = (ms = 2) => new Promise((r) => setTimeout(r, ms));
  const out = {};
`;

test('two devices: peer copies, scopes, mismatch errors, peer access', () => {
  const r = runFake(PRELUDE + `
    (async () => {
      out.count = driver.Device.count();
      const h0 = fill(5000, 7), h1 = fill(5000, 3);
      const a = gpuarray.toGpu(h0, { device: 0 });
      const b = a.to(1);
      out.devices = [a.device, b.device];
      same(b.get(), h0);
      const c = gpuarray.toGpu(h1, { device: 1 });
      c.copyTo(a); same(a.get(), h1);                       // peer copy into device 0
      b.set(gpuarray.toGpu(h0)); same(b.get(), h0);         // set() across devices copies
      same(await b.getAsync(), h0);                         // from device 0's scope
      out.same = a.to(0) === a;
      // Streams of both sides; a stream of the wrong device is refused before any copy.
      const s1 = withDevice(1, () => new driver.Stream()), s0 = new driver.Stream();
      out.streamDevices = [s0.device, s1.device];
      const d = a.to(1, { stream: s1, srcStream: s0 });
      await s1.synchronizeAsync(); same(d.get(), h1);
      out.wrongStream = err(() => a.to(1, { stream: s0 }))[0];
      out.wrongSrc = err(() => a.to(1, { srcStream: s1 }))[0];
      // Operations: arrays of two devices, and an array off the current device.
      out.mix = err(() => a.add(b)).slice(0, 2);
      out.off = err(() => b.add(1)).slice(0, 2);
      out.offIn1 = err(() => withDevice(1, () => a.fill(0))).slice(0, 2);
      out.range = err(() => a.to(2))[0];
      // Async scopes interleaved at awaits keep their devices.
      out.scopes = await Promise.all([0, 1, 0, 1].map((dev) => withDevice(dev, async () => {
        const seen = [];
        for (let i = 0; i < 3; i++) {
          await tick(1 + dev);
          const x = gpuarray.toGpu(fill(16));
          seen.push(driver.getDevice(), x.device, new driver.Stream().device);
          same(await x.getAsync(), fill(16));
          x.dispose();
        }
        return seen;
      })));
      out.after = driver.getDevice();
      // useDevice inside a scope lasts until the scope ends.
      out.use = withDevice(0, () => { driver.useDevice(1); return gpuarray.empty(4, 'float32').device; });
      out.afterUse = gpuarray.empty(4, 'float32').device;
      out.peers = [driver.canAccessPeer(0, 1), driver.canAccessPeer(1, 0), driver.canAccessPeer(1, 1)];
      driver.Context.enablePeerAccess(1);
      driver.Context.enablePeerAccess(1);                    // idempotent
      withDevice(1, () => driver.Context.enablePeerAccess(new driver.Device(0)));
      driver.Context.enablePeerAccess(0);                    // itself: nothing to do
      for (const x of [a, b, c, d]) x.dispose();
      s0.dispose(); s1.dispose();
      out.ok = true;
      console.log(JSON.stringify(out));
    })();
  `, { FAKECUDA_DEVICES: '2' });
  expectClean(r);
  expect(r.out).toMatchObject({
    count: 2, devices: [0, 1], same: true, streamDevices: [0, 1],
    wrongStream: 'ERR_DEVICE_MISMATCH', wrongSrc: 'ERR_DEVICE_MISMATCH',
    mix: ['ERR_DEVICE_MISMATCH', [0, 1]], off: ['ERR_DEVICE_MISMATCH', [1, 0]], offIn1: ['ERR_DEVICE_MISMATCH', [0, 1]],
    range: 'ERR_OUT_OF_RANGE',
    scopes: [[0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1], [0, 0, 0, 0, 0, 0, 0, 0, 0], [1, 1, 1, 1, 1, 1, 1, 1, 1]],
    after: 0, use: 1, afterUse: 0, peers: [true, true, true], ok: true,
  });
});

test('one device (the default double): the API paths and refusals', () => {
  const r = runFake(PRELUDE + `
    (async () => {
      const a = gpuarray.toGpu(fill(100), { device: 0 });
      out.to = a.to(0) === a;
      out.scoped = await withDevice(0, async () => { await tick(); return gpuarray.toGpu(fill(3)).device; });
      out.peer = driver.canAccessPeer(0, 0);
      driver.Context.enablePeerAccess(0);
      out.range = [err(() => withDevice(1, () => 0))[0], err(() => gpuarray.zeros(2, 'float32', { device: 1 }))[0],
        err(() => a.to(1))[0], err(() => driver.canAccessPeer(0, 1))[0]];
      const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
      const b = gpuarray.empty(100, 'float32');
      native.memcpyPeer(b.ptr, 0, a.ptr, 0, a.nbytes, null, null, false);
      same(b.get(), fill(100));
      out.ok = true;
      console.log(JSON.stringify(out));
    })();
  `);
  expectClean(r);
  expect(r.out).toMatchObject({ to: true, scoped: 0, peer: true, range: Array(4).fill('ERR_OUT_OF_RANGE'), ok: true });
});

test('random fill forms read { device }: another device than the array\'s is refused; the array\'s own runs there', () => {
  const r = runFake(PRELUDE + `
    const { random } = nc;
    const g = new random.Generator({ seed: 1 }), cur = new random.Generator({ seed: 1, algorithm: 'xorwow' });
    const a0 = gpuarray.zeros([64], 'float32'), a1 = gpuarray.zeros([64], 'float32', { device: 1 });
    const i1 = gpuarray.zeros([64], 'int32', { device: 1 });
    const code = (f) => { const e = err(f); return e && e.slice(0, 2); };
    const fills = (a, i, o) => [() => g.fillUniform(a, o), () => g.fillNormal(a, o), () => g.fillLogNormal(a, 0, 1, o),
      () => g.fillExponential(a, o), () => g.fillPoisson(i, 2, o), () => g.fillIntegers(i, 0, 9, o), () => cur.fillNormal(a, o)];
    out.other = fills(a1, i1, { device: 0 }).map(code);          // the array on device 1, the option device 0
    out.message = err(() => g.fillUniform(a1, { device: 0 }))[2];
    out.offset = g.state.offset;                                  // refused before the state moved
    out.own = fills(a1, i1, { device: 1 }).map(code);             // device 1's array filled on device 1 from device 0
    out.ownDevice = fills(a1, i1, { device: new driver.Device(1) }).map(code);
    out.current = fills(a0, a0.astype('int32'), { device: 0 }).map(code);
    out.withoutOption = code(() => g.fillUniform(a1));             // as before: the current device's fill refuses it
    out.bad = [2, -1, 1.5, '1', null].map((d) => code(() => g.fillUniform(a1, { device: d })));
    out.draws = [2, '1'].map((d) => code(() => g.uniform(4, { device: d })));   // the array-making forms' errors
    out.after = driver.getDevice();
    console.log(JSON.stringify(out));
  `, { FAKECUDA_DEVICES: '2' });
  expectClean(r);
  const mismatch = (a: number, b: number) => ['ERR_DEVICE_MISMATCH', [a, b]];
  expect(r.out).toEqual({
    other: Array(7).fill(mismatch(1, 0)),
    message: 'Generator.fillUniform(): the "device" option is device 0; the array lives on device 1 (pass its own device, or fill a.to(0))',
    offset: 0, own: Array(7).fill(null), ownDevice: Array(7).fill(null), current: Array(7).fill(null),
    withoutOption: mismatch(1, 0),
    bad: [['ERR_OUT_OF_RANGE', null], ['ERR_OUT_OF_RANGE', null], ['ERR_OUT_OF_RANGE', null], ['ERR_INVALID_ARG_TYPE', null],
      ['ERR_INVALID_ARG_TYPE', null]],
    draws: [['ERR_OUT_OF_RANGE', null], ['ERR_INVALID_ARG_TYPE', null]],
    after: 0,
  });
});

// A cuRAND generator's states (xorwow, mrg32k3a) live on the device of the draw that made them: a
// draw on another device makes them again there (seeded, skipped to the same position) instead of
// launching its kernels on the first device's memory (a fault without peer access).
test('cuRAND states are made again on the device a draw runs on', () => {
  const r = runFake(PRELUDE + `
    const { random } = nc;
    const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
    const made = [];
    const alloc = native.memAlloc;
    native.memAlloc = function (bytes, ...rest) {
      if (bytes >= 1 << 20) made.push(driver.getDevice()); // the states (256 × 256 of them); the arrays here are smaller
      return alloc.call(this, bytes, ...rest);
    };
    for (const algorithm of ['xorwow', 'mrg32k3a']) {
      const g = new random.Generator({ seed: 5, algorithm });
      made.length = 0;
      const a0 = gpuarray.zeros([64], 'float32'), a1 = gpuarray.zeros([64], 'float32', { device: 1 });
      g.fillUniform(a0);
      withDevice(1, () => g.fillUniform(a1));
      g.fillNormal(a1, { device: 1 });
      g.fillUniform(a0);
      g.fillUniform(a0);
      out[algorithm] = { made: made.slice(), offset: g.state.offset };
      g.dispose();
    }
    console.log(JSON.stringify(out));
  `, { FAKECUDA_DEVICES: '2' });
  expectClean(r);
  expect(r.out).toEqual({ xorwow: { made: [0, 1, 0], offset: 320 }, mrg32k3a: { made: [0, 1, 0], offset: 320 } });
});
