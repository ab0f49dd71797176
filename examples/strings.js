'use strict';
// Strings as char arrays: a Buffer's UTF-8 bytes are upper-cased in place on the GPU (ASCII
// letters only; multi-byte UTF-8 sequences are left alone) with driver.InOut, and a batch of
// strings packed into one byte array with an offsets table (Int32Array) is reversed, one thread
// per string, into driver.Out. Both are compared with the same transformation done on the CPU.
// Run with `node examples/strings.js`.
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const mod = new SourceModule(`
__global__ void upper(unsigned char *s, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n && s[i] >= 'a' && s[i] <= 'z') s[i] -= 'a' - 'A';
}

// String k is bytes [offsets[k], offsets[k + 1]) of text; its reverse goes to the same place in out.
__global__ void reverse_each(unsigned char *out, const unsigned char *text, const int *offsets, int count)
{
  int k = blockIdx.x * blockDim.x + threadIdx.x;
  if (k >= count) return;
  int begin = offsets[k], end = offsets[k + 1];
  for (int j = begin; j < end; j++) out[j] = text[begin + end - 1 - j];
}
`);
const upper = mod.getFunction('upper');
const reverseEach = mod.getFunction('reverse_each');

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}

// --- 1. Upper-case a Buffer in place ----------------------------------------------------------
const text = 'hello, nodecuda! Grüße aus der GPU: ça marche. ' + 'the quick brown fox jumps over the lazy dog. '.repeat(200);
const bytes = Buffer.from(text, 'utf8');
const want = Buffer.from(bytes.map((b) => (b >= 0x61 && b <= 0x7a ? b - 32 : b))); // CPU: same rule
upper(driver.InOut(bytes), bytes.length, { block: [256], grid: [Math.ceil(bytes.length / 256)] });
const result = bytes.toString('utf8');
console.log(`upper: "${text.slice(0, 48)}..." -> "${result.slice(0, 48)}..."`);
if (!bytes.equals(want)) fail('upper: bytes differ from the CPU result');
// Only ASCII changed, so it agrees with toUpperCase wherever the input was ASCII.
if (result.slice(0, 16) !== 'HELLO, NODECUDA!') fail(`upper: got "${result.slice(0, 16)}"`);
if (!result.includes('GRüßE AUS DER GPU: çA MARCHE.')) fail('upper: non-ASCII characters were changed');
console.log(`upper on ${bytes.length} bytes with driver.InOut: OK`);

// --- 2. Reverse each string of a batch --------------------------------------------------------
const words = ['nodecuda', 'PyCUDA', '', 'a', 'GPU', 'stream', 'kernel', 'level', 'x'.repeat(300), 'Node.js'];
const encoded = words.map((w) => Buffer.from(w, 'utf8'));
const packed = Buffer.concat(encoded);
const offsets = new Int32Array(words.length + 1);
encoded.forEach((b, k) => { offsets[k + 1] = offsets[k] + b.length; });
const reversed = Buffer.alloc(packed.length);
reverseEach(driver.Out(reversed), driver.In(packed), driver.In(offsets), words.length,
  { block: [64], grid: [Math.ceil(words.length / 64)] });
const got = Array.from({ length: words.length }, (_, k) => reversed.toString('utf8', offsets[k], offsets[k + 1]));
console.log(`reverse_each: ${words.slice(0, 8).map((w, k) => `${w || '""'} -> ${got[k] || '""'}`).join(', ')}, ...`);
words.forEach((w, k) => {
  const expect = [...w].reverse().join(''); // ASCII words: bytes and characters agree
  if (got[k] !== expect) fail(`reverse_each: word ${k} "${w}" gave "${got[k]}", expected "${expect}"`);
});
console.log(`reverse_each on ${words.length} packed strings with driver.In/driver.Out: OK`);
console.log('All checks passed.');
