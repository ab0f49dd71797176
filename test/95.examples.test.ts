/**
 * Layer 95: the runnable examples. Every examples/*.js runs in its own Node process from the repo
 * root, as a user runs it (`node examples/<name>.js`; `require('nodecuda')` resolves to dist/
 * through the package's self-reference). With a GPU, each must exit 0 and print its checks' lines
 * (each example compares its GPU results with a CPU computation and exits 1 on a mismatch);
 * without one, each must print the one-line skip message and exit 0.
 * @gpu-order gl-first (examples/gl-interop.js draws with GL: test/setup/sequencer.js)
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { describeGpu, hasGpu } from './helpers';
// Module-local aliases: global lookups are slow inside Jest's vm context (hot reference loops).
const { Math, Number } = globalThis;

// pngjs has no type declarations here; only its sync reader is used.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { PNG } = require('pngjs') as { PNG: { sync: { read(data: Buffer): { width: number; height: number; data: Buffer } } } };

const ROOT = path.resolve(__dirname, '..');
const EXAMPLES = path.join(ROOT, 'examples');
const SKIP_LINE = 'nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.';
const FILES = fs.readdirSync(EXAMPLES).filter((f) => f.endsWith('.js')).sort();
const TIMEOUT = 180_000;

interface Run { status: number | null; signal: string | null; stdout: string; stderr: string }

/** Runs `node examples/<file> ...args` from the repo root; os.tmpdir() is `tmp` in the child. */
function run(file: string, args: string[] = [], tmp?: string, extraEnv: Record<string, string> = {}): Run {
  const r = spawnSync(process.execPath, [path.join('examples', file), ...args], {
    cwd: ROOT,
    encoding: 'utf8',
    timeout: TIMEOUT - 10_000,
    maxBuffer: 64 << 20,
    env: { ...process.env, ...(tmp ? { TMPDIR: tmp } : {}), ...extraEnv },
  });
  return { status: r.status, signal: r.signal, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

function readPng(file: string): { width: number; height: number } {
  expect(fs.existsSync(file)).toBe(true);
  const png = PNG.sync.read(fs.readFileSync(file));
  return { width: png.width, height: png.height };
}

/** What each example must print on a GPU (beyond exit code 0, "All checks passed." and no MISMATCH). */
interface Expectation {
  args?: (tmp: string) => string[];
  lines: RegExp[];
  check?: (stdout: string, tmp: string) => void;
}

const EXPECT: Record<string, Expectation> = {
  'async-stream.js': { lines: [/^one stream: y = 2x \+ 1: OK$/m, /^8 chunks on 4 streams: OK$/m, /host->device .* GB\/s/] },
  'blur.js': {
    lines: [/^input \(generated\) .*blur-input\.png: 640x480$/m, /^\d+ sample pixels equal the CPU's: OK$/m, /^wrote .*blurred\.png/m],
    check: (_out, tmp) => {
      expect(readPng(path.join(tmp, 'blurred.png'))).toEqual({ width: 640, height: 480 });
      expect(readPng(path.join(tmp, 'blur-input.png'))).toEqual({ width: 640, height: 480 });
    },
  },
  'cumath-sqrt-fabs.js': { lines: [/^cumath\.sqrt\(cumath\.fabs\(x\)\): OK$/m, /^fabs then sqrt with \{ out: x \}: OK$/m, /max error 0$/m] },
  'data-parallel.js': {
    lines: [/^step {2}1\/60: loss /m, /^step 60\/60: loss /m, /^first gradient \(allReduced\) equals the CPU sum over shards: OK$/m,
      /^loss .* decreasing: OK$/m, /^weights within .* on every rank: OK$/m],
  },
  'double-array-gpuarray.js': { lines: [/^a\.mul\(2\)\.get\(\): OK$/m, /^a\.mul\(2, \{ out: a \}\): OK$/m, /dtype float32, shape \[4,4\]/] },
  'double-array-inout.js': { lines: [/^doublify with driver\.InOut: OK$/m, /^double_into with driver\.In\/driver\.Out: OK$/m, /^In\(a\) left a unchanged: OK$/m] },
  'double-array.js': { lines: [/^max error 0$/m, /^doublify with memAlloc\/memcpyHtod\/memcpyDtoh: OK$/m] },
  'electron-main.js': { lines: [/^Node v[\d.]+ \(no Electron\): compute\(\) OK$/m, /max error 0\.00e\+0/] },
  'elementwise-lincomb.js': {
    lines: [/^linear_combination: OK$/m, /^linear_combination on slice\(0, null, 3\): OK$/m, /^linear_combination_sin: OK$/m],
  },
  'gl-interop.js': {
    args: (tmp) => [path.join(tmp, 'gl.png')],
    lines: [/^GL: .*OpenGL/m, /^kernel wrote 307200 bytes into GL buffer/m, /^320x240 pixels against the CPU .*: OK$/m,
      /^wrote .*gl\.png \(320x240\): OK$/m],
    check: (_out, tmp) => expect(readPng(path.join(tmp, 'gl.png'))).toEqual({ width: 320, height: 240 }),
  },
  'fft-spectrum.js': { lines: [/^peaks at 50 Hz and 120 Hz: OK$/m, /^FFT convolution equals the direct convolution: OK$/m] },
  'gpuarray.js': { lines: [/^a\.add\(row\) +OK$/m, /^i8\.add\(10\) wraps +OK$/m, /^y = \(x\*x \+ 1\) \/ 2 +OK$/m] },
  'mandelbrot.js': {
    args: (tmp) => [path.join(tmp, 'm.png')],
    lines: [/^1600x1200 pixels/m, /^\d+ sample pixels equal the CPU's escape counts: OK$/m, /^wrote .*m\.png \(1600x1200\): OK$/m],
    check: (_out, tmp) => expect(readPng(path.join(tmp, 'm.png'))).toEqual({ width: 1600, height: 1200 }),
  },
  'memcpy-struct.js': {
    lines: [/^int32 memcpyHtod -> memcpyDtoh round trip: OK$/m, /^int32 memcpyDtod: OK$/m, /^struct array round trip: OK$/m,
      /^struct 0: array times 2: OK$/m, /^struct 1: array times 4: OK$/m, /^struct 2: array times 2: OK$/m],
  },
  'multigpu-allreduce.js': {
    lines: [/^NCCL 2\.\d+\.\d+; \d+ GPU\(s\), one worker thread each$/m, /^rank 0: 1000003 elements = \d+, 0 wrong: OK$/m,
      /^allReduce 64 MiB float32 on \d+ GPU\(s\): [\d.]+ ms, algbw [\d.]+ GB\/s, busbw [\d.]+ GB\/s/m],
  },
  'mlp.js': {
    lines: [/^hidden = relu\(x·W1 \+ b1\), 256x512, against the CPU: OK/m, /^softmax rows sum to 1: OK$/m,
      /^x·W1tᵀ through a transposed view equals x·W1: OK/m, /^float16 forward pass against the CPU: OK/m],
  },
  'monte-carlo-pi.js': {
    lines: [/^batch 8\/8: /m, /^GPU counts equal the CPU counts in every batch: OK$/m],
    check: (out) => {
      const m = /^pi estimate: (\d+\.\d+) from (\d+) points/m.exec(out);
      expect(m).not.toBeNull();
      expect(Number(m![2])).toBe(8 * 2 ** 22);
      expect(Math.abs(Number(m![1]) - Math.PI)).toBeLessThan(0.01);
    },
  },
  'nbody.js': {
    lines: [/^small system against the CPU: OK$/m, /^ {2}step 10\/10: [\d.]+ ms/m, /^large system energy conserved: OK$/m],
  },
  'quickstart.js': { lines: [/^nodecuda \S+ \(driver/m, /^d\. upper on a char\* string/m] },
  'reductions.js': { lines: [/^max and argmax: OK$/m, /^sum and dot: OK$/m, /^ReductionKernel dot, row 3/m] },
  'sort-keys.js': {
    lines: [/^sort equals the CPU sort, argsort is ordered and stable: OK$/m, /^leaderboard \(ties keep their order\): OK$/m,
      /^unique values and counts equal the CPU: OK$/m, /^searchsorted equals the CPU: OK$/m, /^topk and partition equal the CPU: OK$/m],
  },
  'statistics.js': {
    lines: [/^nanmedian and nanpercentile equal the CPU: OK$/m, /^outliers \(extract, flatnonzero\) equal the CPU: OK$/m,
      /^argwhere and countNonzero equal the CPU: OK$/m],
  },
  'strings.js': {
    lines: [/^upper on \d+ bytes with driver\.InOut: OK$/m, /HELLO, NODECUDA! GRüßE AUS DER GPU: çA MARCHE\./,
      /^reverse_each on 10 packed strings with driver\.In\/driver\.Out: OK$/m],
  },
  'worker-threads.js': {
    lines: [/^main thread: 5 rounds, .* 0 wrong values: OK$/m, /^worker 4 {3}: 5 rounds, .* 0 wrong values: OK$/m,
      /^4 workers and the main thread in \d+ ms: OK$/m],
  },
};

beforeAll(() => {
  if (!fs.existsSync(path.join(ROOT, 'dist', 'index.js'))) {
    throw new Error('dist/index.js is missing: the examples load the built package. Run `npx tsc -p tsconfig.build.json`.');
  }
});

describe('examples', () => {
  test('every example has expectations here, and every expectation an example', () => {
    expect(FILES.filter((f) => !EXPECT[f])).toEqual([]);
    expect(Object.keys(EXPECT).filter((f) => !FILES.includes(f))).toEqual([]);
  });

  test("require('nodecuda') from examples/ resolves to this package's dist/ (self-reference)", () => {
    const r = spawnSync(process.execPath, ['-p', "require.resolve('nodecuda')"], { cwd: EXAMPLES, encoding: 'utf8' });
    expect(r.stderr).toBe('');
    expect(r.stdout.trim()).toBe(path.join(ROOT, 'dist', 'index.js'));
  });

  // npm start: says why there is no GPU and what it would do, then compiles its kernels (no GPU
  // needed). A driver path that does not exist makes the same case on the GPU machine.
  test('quickstart.js says why, what it would do, and compiles its kernels with NVRTC', () => {
    const r = run('quickstart.js', [], undefined, { NODECUDA_LIBCUDA: path.join(os.tmpdir(), 'no-such-dir', 'libcuda.so.1') });
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^nodecuda: no usable GPU here \((CUDA_DRIVER_NOT_FOUND|CUDA_ERROR_\w+|CUDA_DRIVER_TOO_OLD)\): \S/);
    expect(r.stdout).toMatch(/^With one, this example would copy 1000 floats to the GPU/m);
    expect(r.stdout).toMatch(/^Compiled its kernels for sm_90 with NVRTC \d+\.\d+: [1-9]\d* bytes of cubin in \d+ ms\.$/m);
    expect(r.stdout).toMatch(/npx nodecuda doctor/);
    expect(r.status).toBe(0);
  });
});

// Without a CUDA driver or GPU (CI, build machines): every example prints one line and exits 0.
// With one, this case cannot be produced (CUDA_VISIBLE_DEVICES does not hide the driver from
// every example), so it is skipped there, as the GPU suites are skipped here.
(hasGpu ? describe.skip : describe)('examples without a GPU', () => {
  test.each(FILES.filter((f) => f !== 'quickstart.js'))('%s prints the skip line and exits 0', (file) => {
    const r = run(file);
    expect(r.signal).toBeNull();
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`${SKIP_LINE}\n`);
    expect(r.status).toBe(0);
  });
});

describeGpu('examples on the GPU', () => {
  let tmp = '';
  beforeAll(() => {
    tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'nodecuda-examples-'));
  });
  afterAll(() => {
    if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Runs an example and checks the lines every example prints on success. */
  function runChecked(file: string, args: string[]): string {
    const r = run(file, args, tmp);
    const all = `${r.stdout}\n${r.stderr}`;
    if (r.status !== 0) {
      throw new Error(`${file} exited with ${r.status} (signal ${r.signal})\n--- stdout\n${r.stdout}\n--- stderr\n${r.stderr}`);
    }
    expect(all).not.toMatch(/MISMATCH/);
    expect(r.stdout).not.toContain(SKIP_LINE);
    expect(r.stdout).toMatch(/^All checks passed\.$/m);
    return r.stdout;
  }

  test.each(FILES)('%s exits 0 and prints its checks', (file) => {
    const e = EXPECT[file];
    expect(e).toBeDefined();
    const out = runChecked(file, e.args ? e.args(tmp) : []);
    for (const line of e.lines) expect(out).toMatch(line);
    e.check?.(out, tmp);
  }, TIMEOUT);

  test('blur.js reads a given PNG, writes the given path, takes a radius', () => {
    const input = path.join(tmp, 'blur-given-input.png');
    // Make an input with the example itself (a generated image, saved next to its output).
    runChecked('blur.js', []);
    fs.copyFileSync(path.join(tmp, 'blur-input.png'), input);
    const output = path.join(tmp, 'blur-given-output.png');
    const out = runChecked('blur.js', [input, output, '2']);
    expect(out).toMatch(/^input .*blur-given-input\.png: 640x480$/m);
    expect(out).toMatch(/^radius 2: weights \[1,4,6,4,1\] \/ 2\^4 per axis/m);
    expect(readPng(output)).toEqual({ width: 640, height: 480 });
  }, TIMEOUT);

  test('monte-carlo-pi.js takes a batch count', () => {
    const out = runChecked('monte-carlo-pi.js', ['2']);
    expect(out).toMatch(/^batch 2\/2: /m);
    expect(out).not.toMatch(/^batch 3\//m);
    expect(out).toMatch(new RegExp(`^pi estimate: \\d\\.\\d+ from ${2 * 2 ** 22} points`, 'm'));
  }, TIMEOUT);

});
