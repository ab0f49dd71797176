/**
 * Joins (concatenate/stack/take/put) refuse arrays of two contexts with TypeError
 * ERR_DEVICE_MISMATCH, like the operators. GPU only.
 */
import * as cuda from '../lib';
import { ElementwiseKernel, GPUArray, SourceModule, driver, gpuarray } from '../lib';
import { collect, describeGpu, expectCode, settledLive } from './helpers';
import { expectArray, upload } from './reference';

const live = (): number => cuda.memory().liveAllocations;

describeGpu('joins across contexts (GPU)', () => {
  let baseline = 0;
  beforeAll(async () => {
    await collect();
    baseline = settledLive();
  });

  describe('b) joins with arrays of two contexts', () => {
    test('concatenate/stack/take/put (and an operator) → TypeError ERR_DEVICE_MISMATCH; nothing leaked', () => {
      const a = upload('float32', [1, 2, 3]), ia = upload('int64', [0n, 2n]);
      const ctx = new driver.Device(0).makeContext();
      expect(ctx).toBeInstanceOf(driver.Context);
      let b: GPUArray, ib: GPUArray;
      try {
        b = upload('float32', [4, 5, 6]);
        ib = upload('int64', [1n]);
      } finally {
        driver.Context.pop();
      }
      expect(b.context).not.toBe(a.context);
      const before = settledLive();
      const bad = (fn: () => unknown): void => {
        const e = expectCode(fn, TypeError, 'ERR_DEVICE_MISMATCH');
        expect(e.message).toMatch(/context|device/);
        expect(live()).toBe(before);
      };
      bad(() => a.add(b));
      bad(() => gpuarray.concatenate([a, b]));
      bad(() => gpuarray.concatenate([a, a, b]));
      bad(() => gpuarray.stack([b, a], 1));
      bad(() => gpuarray.take(a, ib));
      bad(() => gpuarray.take(b, ia));
      bad(() => gpuarray.put(a, ib, a));
      bad(() => gpuarray.put(a, ia, b));
      bad(() => gpuarray.put(a, [0, 1], b));
      // Same-context calls still work.
      cuda.tidy(() => {
        expectArray(gpuarray.concatenate([a, a]), 'float32', [6], [1, 2, 3, 1, 2, 3]);
        expectArray(gpuarray.stack([a, a], 1), 'float32', [3, 2], [1, 1, 2, 2, 3, 3]);
        expectArray(gpuarray.take(a, ia), 'float32', [2], [1, 3]);
      });
      for (const x of [a, ia, b!, ib!]) x.dispose();
    });
  });

  test('c) a stream of another context → TypeError ERR_DEVICE_MISMATCH at the launch (not a deferred CudaError); work goes on', async () => {
    const a = upload('float32', [1, 2, 3]);
    new driver.Device(0).makeContext();
    let s: InstanceType<typeof driver.Stream>;
    try {
      s = new driver.Stream();
    } finally {
      driver.Context.pop();
    }
    const twice = new ElementwiseKernel('float *x', 'x[i] = x[i] * 2', 'twice_other_ctx');
    const inc = new SourceModule('extern "C" __global__ void inc(float *x) { x[threadIdx.x] += 1.0f; }').getFunction('inc');
    // Device 0's context: another context of the current device, or (a worker on device 1 of a
    // multi-GPU machine) another device.
    const bad = (fn: () => unknown): void => {
      expect(expectCode(fn, TypeError, 'ERR_DEVICE_MISMATCH').message).toMatch(/^launch: the stream belongs to (another context of device \d|device \d, the kernel's module to device \d)/);
    };
    bad(() => twice(a, { stream: s! }));
    bad(() => inc(a, { block: [3, 1, 1], stream: s! }));
    // Nothing ran and nothing is pending: the same kernels on the legacy stream, then a synchronize.
    twice(a);
    inc(a, { block: [3, 1, 1] });
    driver.Context.synchronize();
    expectArray(a, 'float32', [3], [3, 5, 7]);
    s!.dispose();
    a.dispose();
  });

  test('nothing leaked by this suite', async () => {
    await collect();
    expect(live()).toBe(baseline);
  });
});
