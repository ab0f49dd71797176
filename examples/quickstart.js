'use strict';
// nodecuda quickstart: device info, then four small kernels, each checked against the CPU.
// Run with `npm start` (after `npm install`).
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

// The four kernels of this example (compiled below with NVRTC).
const SOURCE = `
__global__ void double_it(float *a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) a[i] *= 2.0f;
}

__global__ void double_into(const float *a, float *b, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) b[i] = 2.0f * a[i];
}

__global__ void upper(char *s, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && s[i] >= 'a' && s[i] <= 'z') s[i] -= 'a' - 'A';
}
`;

// --- Without a GPU: say why, and do what needs none (compiling) ---------------------------------
const available = cuda.availability();
if (!available.ok) {
  console.log(`nodecuda: no usable GPU here (${available.code}): ${available.message}`);
  console.log('With one, this example would copy 1000 floats to the GPU, run three kernels on them ' +
    'and on a string, and check every result against the CPU.');
  try {
    // NVRTC needs no GPU: compile the same kernels for an H100 (sm_90), as one would to ship them.
    const t0 = Date.now();
    const { image } = cuda.compiler.compile(SOURCE, { arch: 'sm_90' });
    console.log(`Compiled its kernels for sm_90 with NVRTC ${cuda.version().nvrtc}: ` +
      `${image.length} bytes of cubin in ${Date.now() - t0} ms.`);
  } catch (e) {
    console.log(`Compiling needs NVRTC, which is not usable either: ${e.message.split('\n')[0]}`);
  }
  console.log('Run `npx nodecuda doctor` for the full picture.');
  process.exit(0);
}

// --- Device info -------------------------------------------------------------------------------
const v = cuda.version();
console.log(`nodecuda ${v.nodecuda} (driver ${v.driver}, NVRTC ${v.nvrtc}, N-API ${v.napi})`);
const dev = new driver.Device(0);
const [major, minor] = dev.computeCapability();
const gib = (dev.totalMemory() / 2 ** 30).toFixed(1);
console.log(`${driver.Device.count()} device(s); device 0: ${dev.name()}, ` +
  `compute capability ${major}.${minor}, ${gib} GiB, PCI ${dev.pciBusId()}`);

// --- Kernels -----------------------------------------------------------------------------------
// SourceModule compiles with NVRTC for the current GPU and wraps the source in extern "C", so the
// functions keep their plain names. The signatures are parsed: plain numbers work for `int n`.
const mod = new SourceModule(SOURCE);
const doubleIt = mod.getFunction('double_it');
const doubleInto = mod.getFunction('double_into');
const upper = mod.getFunction('upper');

// One thread per element, 256 threads per block.
const launch = (n) => ({ block: [256], grid: [Math.ceil(n / 256)] });

// Compares element by element; exits with code 1 at the first difference.
function check(what, got, want) {
  if (got.length !== want.length) fail(`${what}: length ${got.length}, expected ${want.length}`);
  const i = Array.from(want).findIndex((w, k) => got[k] !== w);
  if (i >= 0) fail(`${what}: MISMATCH at index ${i}: got ${got[i]}, expected ${want[i]}`);
  console.log(`${what}: OK`);
}
function fail(message) {
  console.error(message);
  process.exit(1);
}

const n = 1000; // not a multiple of 256: the kernels' `if (i < n)` matters
const a = Float32Array.from({ length: n }, (_, i) => i * 0.5);
const want = a.map((x) => 2 * x);
const head = (arr) => `[${Array.from(arr.slice(0, 4)).join(', ')}, ...]`;

// a. Explicit device memory: allocate, copy in, launch, copy out, free.
const alloc = driver.memAlloc(a.byteLength);
driver.memcpyHtod(alloc, a);
doubleIt(alloc, n, launch(n));
const out = new Float32Array(n);
driver.memcpyDtoh(out, alloc);
alloc.free();
console.log(`a. memAlloc + memcpyHtod, double_it, memcpyDtoh: ${head(a)} -> ${head(out)}`);
check('   result', out, want);

// b. InOut: copied to the GPU before the launch and back into `b` after it.
const b = a.slice();
doubleIt(driver.InOut(b), n, launch(n));
console.log(`b. double_it on driver.InOut(b): ${head(a)} -> ${head(b)}`);
check('   result', b, want);

// c. In + Out: `a` is only read on the GPU, `c` is only written.
const c = new Float32Array(n);
doubleInto(driver.In(a), driver.Out(c), n, launch(n));
console.log(`c. double_into from driver.In(a) to driver.Out(c): ${head(a)} -> ${head(c)}`);
check('   result', c, want);

// d. A string as `char*`: UTF-8 bytes in, upper-cased in place, decoded again.
const bytes = new TextEncoder().encode('hello, nodecuda');
upper(driver.InOut(bytes), bytes.length, launch(bytes.length));
const text = new TextDecoder().decode(bytes);
console.log(`d. upper on a char* string with driver.InOut: "hello, nodecuda" -> "${text}"`);
check('   result', text, 'HELLO, NODECUDA');

console.log('All checks passed.');
