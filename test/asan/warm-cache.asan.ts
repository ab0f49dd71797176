/**
 * Issue 18 (first use) on the CPU driver double: a process whose kernels are all in the disk cache
 * never opens libnvrtc. The cache key names the libnvrtc file the addon would open (found without
 * opening it), and a cubin cached for the device's own sm_NN is taken before NVRTC is asked which
 * architectures it knows. NVRTC is real here, kernel launches are not: each child compiles or
 * loads the kernels and reports whether libnvrtc is mapped into it (/proc/self/maps).
 */
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

const SCRIPT = (body: string): string => `
  const nc = require(process.env.NODECUDA_DIST);
  const { ElementwiseKernel, SourceModule, gpuarray } = nc;
  const x = gpuarray.zeros([64], 'float32');
  ${body}
  const nvrtc = require('fs').readFileSync('/proc/self/maps', 'utf8').includes('libnvrtc');
  console.log(JSON.stringify({ nvrtc }));
`;
const EK = `new ElementwiseKernel('float *x', 'x[i] = x[i] * 3.0f + 1.0f', 'warm_ek')(x);`;
const SM = `new SourceModule('__global__ void warm_sm(float *x) { x[threadIdx.x] += 2.0f; }').getFunction('warm_sm');`;

describe('a warm disk cache: kernels load without opening NVRTC', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-warm-'));
    fs.chmodSync(dir, 0o700);
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('ElementwiseKernel and SourceModule: compiled once, then loaded from the cache by a fresh process', () => {
    // Built-in kernels come from the shipped images or the cache too: none of them needs NVRTC here.
    const env = { NODECUDA_CACHE_DIR: dir, NODECUDA_PREBUILT: '0' };
    const first = runFake(SCRIPT(EK + SM), env);
    expectClean(first);
    expect(first.out).toEqual({ nvrtc: true });
    const again = runFake(SCRIPT(EK + SM), env);
    expectClean(again);
    expect(again.out).toEqual({ nvrtc: false });
    // A kernel the cache does not hold still compiles (NVRTC opened on demand).
    const other = runFake(SCRIPT(EK.replace('3.0f', '5.0f')), env);
    expectClean(other);
    expect(other.out).toEqual({ nvrtc: true });
  });

  test('NODECUDA_NVRTC names the library: another file is another key (recompiled), the same file hits', () => {
    const lib64 = path.join(process.env.CUDA_HOME || process.env.CUDA_PATH || '/usr/local/cuda', 'lib64');
    const real = ['libnvrtc.so.13', 'libnvrtc.so.12', 'libnvrtc.so'].map((f) => path.join(lib64, f)).find((f) => fs.existsSync(f));
    expect(real).toBeDefined(); // the toolkit's NVRTC, which the build needs anyway
    const copy = path.join(dir, 'libnvrtc-copy.so');
    fs.copyFileSync(real!, copy);
    const cache = path.join(dir, 'cache');
    const env = { NODECUDA_CACHE_DIR: cache, NODECUDA_PREBUILT: '0' };
    expectClean(runFake(SCRIPT(EK), env));
    const same = runFake(SCRIPT(EK), env);
    expect(same.out).toEqual({ nvrtc: false });
    const moved = runFake(SCRIPT(EK), { ...env, NODECUDA_NVRTC: copy });
    expectClean(moved);
    expect(moved.out).toEqual({ nvrtc: true });
    expect(runFake(SCRIPT(EK), { ...env, NODECUDA_NVRTC: copy }).out).toEqual({ nvrtc: false });
  });
});
