/**
 * src/cufft.cc's native checks under AddressSanitizer with the CPU driver double: argument errors
 * before any cuFFT call, and a plan made in the double's context. With no real driver behind it,
 * cuFFT's runtime cannot start, so cufftCreate fails: that must be a CufftError (through the class
 * lib/cuda/cufft.ts hands over), with nothing leaked or cached. On a machine with a GPU cuFFT may
 * make the plan instead: then it is destroyed, never executed (the double's addresses are not the
 * GPU's).
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('cuFFT plans: argument errors, CufftError from a failing cuFFT call, destroy twice', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
    const cufft = require(process.env.NODECUDA_DIST + '/cuda/cufft');
    const code = (f) => { try { f(); } catch (e) { return [e.name, e.code]; } return null; };
    const out = {};
    out.version = cufft.cufftVersion()[0] > 0;
    out.rank = code(() => cufft.cufftPlan(0x29, [2, 2, 2, 2], [2, 2, 2, 2], 1, 16, [2, 2, 2, 2], 1, 16, 1));
    out.type = code(() => cufft.cufftPlan(7, [4], [4], 1, 4, [4], 1, 4, 1));
    out.sizes = code(() => cufft.cufftPlan(0x29, [0], [4], 1, 4, [4], 1, 4, 1));
    out.embed = code(() => cufft.cufftPlan(0x29, [4], [4, 4], 1, 4, [4], 1, 4, 1));
    out.execHandle = code(() => native.cufftExec({}, null, 0n, 0n, 0n, false));
    out.destroyHandle = code(() => native.cufftDestroy(null));
    let plan = null;
    try {
      plan = cufft.cufftPlan(0x29, [16], [16], 1, 16, [16], 1, 16, 4);
      out.plan = 'made';
    } catch (e) {
      out.plan = [e instanceof nc.CufftError, e.name, typeof e.code === 'string' && e.code.startsWith('CUFFT_'), e.call];
    }
    if (plan) {
      cufft.cufftDestroy(plan[0]);
      cufft.cufftDestroy(plan[0]);
      out.afterDestroy = code(() => native.cufftExec(plan[0], null, 0n, 0n, 0n, false));
    }
    global.gc();
    out.ok = true;
    console.log(JSON.stringify(out));
  `);
  expectClean(r);
  expect(r.out).toMatchObject({
    version: true, rank: ['RangeError', 'ERR_OUT_OF_RANGE'], type: ['RangeError', 'ERR_OUT_OF_RANGE'],
    sizes: ['RangeError', 'ERR_OUT_OF_RANGE'], embed: ['TypeError', 'ERR_INVALID_ARG_TYPE'],
    execHandle: ['TypeError', 'ERR_INVALID_ARG_TYPE'], destroyHandle: ['TypeError', 'ERR_INVALID_ARG_TYPE'], ok: true,
  });
  if (r.out.plan === 'made') expect(r.out.afterDestroy).toEqual(['TypeError', 'ERR_USE_AFTER_DISPOSE']);
  else expect(r.out.plan).toEqual([true, 'CufftError', true, 'cufftCreate']);
});

test('without libcufft a transform fails before it stages anything: CufftError CUFFT_NOT_FOUND, no launch, no allocation', () => {
  // Every launch fails (the double), so a staging copy (the float32 input padded to complex64)
  // would surface as a CudaError from cuLaunchKernel instead.
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const x = nc.gpuarray.toGpu(Float32Array.from({ length: 16 }, (_, i) => i)); // a copy: no launch
    const live = () => nc.memory().liveAllocations;
    const before = live();
    const out = {};
    for (const [k, f] of [['fft', () => nc.fft.fft(x, { n: 1 << 20 })], ['rfft', () => nc.fft.rfft(x)], ['ifft2', () => nc.fft.ifft2(x.reshape(4, 4))]]) {
      try { f(); out[k] = 'no error'; } catch (e) { out[k] = [e instanceof nc.CufftError, e.code]; }
    }
    out.leaked = live() - before;
    out.alive = !x.disposed && x.get()[15] === 15;
    console.log(JSON.stringify(out));
  `, { NODECUDA_CUFFT: '/nonexistent/libcufft.so', NODECUDA_LAUNCH_QUEUE: '0', FAKECUDA_FAIL_LAUNCH: '1' });
  expectClean(r);
  const notFound = [true, 'CUFFT_NOT_FOUND'];
  expect(r.out).toEqual({ fft: notFound, rfft: notFound, ifft2: notFound, leaked: 0, alive: true });
});
