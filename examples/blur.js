'use strict';
// Blurs a PNG image on the GPU with a custom kernel: a (2r+1)x(2r+1) binomial (Gaussian-like)
// filter on RGBA pixels (uchar4), edges clamped, with integer weights kept in __constant__ memory
// (set through SourceModule.getGlobal). Integer arithmetic makes the result exact, so a CPU
// computation of sample pixels must match byte for byte. Without an input, a test image is
// generated (and saved next to the output).
// Run with `node examples/blur.js [input.png [output.png [radius 1-5]]]`
// (default output: blurred.png in os.tmpdir()).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const cuda = require('nodecuda');
const { driver, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}
const { PNG } = require('pngjs'); // a devDependency of nodecuda: `npm install pngjs` elsewhere

const MAX_RADIUS = 5; // 255 * 4^(2r) must fit in an int
const [inArg, outArg, radiusArg] = process.argv.slice(2);
const outPath = path.resolve(outArg ?? path.join(os.tmpdir(), 'blurred.png'));
const radius = Number(radiusArg ?? 4);
if (!Number.isInteger(radius) || radius < 1 || radius > MAX_RADIUS) {
  console.error(`radius must be an integer from 1 to ${MAX_RADIUS}`);
  process.exit(2);
}

/** A test image with hard edges: stripes, a checkerboard and a disc. */
function testImage(width, height) {
  const png = new PNG({ width, height });
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const o = 4 * (y * width + x);
      const checker = ((x >> 5) + (y >> 5)) % 2 === 0;
      const disc = (x - width / 2) ** 2 + (y - height / 2) ** 2 < (height / 3) ** 2;
      png.data[o] = disc ? 240 : checker ? 30 : 200;
      png.data[o + 1] = (x * 255 / (width - 1)) | 0;
      png.data[o + 2] = (y * 255 / (height - 1)) | 0;
      png.data[o + 3] = 255;
    }
  }
  return png;
}

let input;
if (inArg) {
  input = PNG.sync.read(fs.readFileSync(inArg)); // any PNG; pngjs gives 8-bit RGBA
  console.log(`input ${path.resolve(inArg)}: ${input.width}x${input.height}`);
} else {
  input = testImage(640, 480);
  const generated = path.join(path.dirname(outPath), 'blur-input.png');
  fs.writeFileSync(generated, PNG.sync.write(input));
  console.log(`input (generated) ${generated}: ${input.width}x${input.height}`);
}
const { width, height } = input;
const src = input.data; // Buffer: width * height * 4 bytes, row-major RGBA

const mod = new SourceModule(`
#define MAX_RADIUS ${MAX_RADIUS}
__constant__ int weights[2 * MAX_RADIUS + 1];

__global__ void blur(uchar4 *dst, const uchar4 *src, int width, int height, int radius, int shift)
{
  int x = blockIdx.x * blockDim.x + threadIdx.x;
  int y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= width || y >= height) return;
  int r = 0, g = 0, b = 0, a = 0;
  for (int dy = -radius; dy <= radius; dy++) {
    int yy = min(max(y + dy, 0), height - 1);
    for (int dx = -radius; dx <= radius; dx++) {
      int xx = min(max(x + dx, 0), width - 1);
      int w = weights[dy + radius] * weights[dx + radius];
      uchar4 p = src[yy * width + xx];
      r += w * p.x;
      g += w * p.y;
      b += w * p.z;
      a += w * p.w;
    }
  }
  int half = 1 << (shift - 1); // round to nearest
  dst[y * width + x] = make_uchar4((r + half) >> shift, (g + half) >> shift, (b + half) >> shift, (a + half) >> shift);
}
`);
const blur = mod.getFunction('blur');

// Binomial weights C(2r, k): they sum to 2^(2r), so the 2-D filter sums to 2^(4r).
const weights = new Int32Array(2 * MAX_RADIUS + 1);
for (let k = 0; k <= 2 * radius; k++) weights[k] = k === 0 ? 1 : (weights[k - 1] * (2 * radius - k + 1)) / k;
const shift = 4 * radius;
const [weightsGlobal, weightsBytes] = mod.getGlobal('weights');
driver.memcpyHtod(weightsGlobal, weights); // __constant__ memory, 44 bytes
console.log(`radius ${radius}: weights [${Array.from(weights.subarray(0, 2 * radius + 1))}] / 2^${2 * radius} ` +
  `per axis (${weightsBytes} bytes of __constant__ memory)`);

const dSrc = driver.memAllocLike(src);
const dDst = driver.memAllocLike(src);
driver.memcpyHtod(dSrc, src);
const block = [16, 16];
const grid = [Math.ceil(width / 16), Math.ceil(height / 16)];
const start = new driver.Event().record();
blur(dDst, dSrc, width, height, radius, shift, { block, grid });
const end = new driver.Event().record();
end.synchronize();
const out = Buffer.alloc(src.length);
driver.memcpyDtoh(out, dDst);
dSrc.free();
dDst.free();
console.log(`blur kernel: ${end.timeSince(start).toFixed(3)} ms for ${width}x${height} pixels`);

// CPU check: the corners, the edges' middles and 300 pseudo-random pixels.
function cpuPixel(x, y) {
  const sum = [0, 0, 0, 0];
  for (let dy = -radius; dy <= radius; dy++) {
    const yy = Math.min(Math.max(y + dy, 0), height - 1);
    for (let dx = -radius; dx <= radius; dx++) {
      const xx = Math.min(Math.max(x + dx, 0), width - 1);
      const w = weights[dy + radius] * weights[dx + radius];
      for (let c = 0; c < 4; c++) sum[c] += w * src[4 * (yy * width + xx) + c];
    }
  }
  return sum.map((s) => (s + 2 ** (shift - 1)) >> shift);
}
const samples = [[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1],
  [width >> 1, 0], [0, height >> 1], [width - 1, height >> 1], [width >> 1, height - 1]];
for (let k = 0; k < 300; k++) samples.push([(k * 7919) % width, (k * 104729) % height]);
for (const [x, y] of samples) {
  const want = cpuPixel(x, y);
  const got = Array.from(out.subarray(4 * (y * width + x), 4 * (y * width + x) + 4));
  if (want.some((v, c) => v !== got[c])) {
    console.error(`MISMATCH at pixel (${x}, ${y}): GPU [${got}], CPU [${want}]`);
    process.exit(1);
  }
}
console.log(`${samples.length} sample pixels equal the CPU's: OK`);

const result = new PNG({ width, height });
out.copy(result.data);
fs.writeFileSync(outPath, PNG.sync.write(result));
console.log(`wrote ${outPath} (${width}x${height})`);
console.log('All checks passed.');
