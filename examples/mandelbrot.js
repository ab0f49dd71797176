'use strict';
// The Mandelbrot set on the GPU, written to a PNG (pngjs). A SourceModule kernel computes the
// escape iteration of every pixel in double precision into a GPUArray (one thread per pixel, 2-D
// blocks); the counts are coloured on the CPU and saved. The kernel is compiled with
// --fmad=false, so each double operation rounds as in JavaScript and a CPU recomputation of a
// grid of sample pixels must give exactly the same counts.
// Run with `node examples/mandelbrot.js [output.png]` (default: mandelbrot.png in os.tmpdir()).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const cuda = require('nodecuda');
const { driver, gpuarray, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}
const { PNG } = require('pngjs'); // a devDependency of nodecuda: `npm install pngjs` elsewhere

const outPath = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), 'mandelbrot.png'));
const width = 1600;
const height = 1200;
const maxIter = 1000;
// The view: centre (-0.75, 0), 3.2 units wide; pixel (px, py) samples its centre.
const xmin = -2.35;
const ymax = 1.2;
const step = 3.2 / width;

const mod = new SourceModule(`
__global__ void mandelbrot(int *counts, int width, int height, double xmin, double ymax, double step, int max_iter)
{
  int px = blockIdx.x * blockDim.x + threadIdx.x;
  int py = blockIdx.y * blockDim.y + threadIdx.y;
  if (px >= width || py >= height) return;
  double cx = xmin + (px + 0.5) * step;
  double cy = ymax - (py + 0.5) * step;
  double x = 0.0, y = 0.0;
  int it = 0;
  while (it < max_iter && x * x + y * y <= 4.0) {
    double xt = x * x - y * y + cx;
    y = 2.0 * x * y + cy;
    x = xt;
    it++;
  }
  counts[py * width + px] = it;
}
`, { options: ['--fmad=false'] });
const mandelbrot = mod.getFunction('mandelbrot');

// The same loop in JavaScript (doubles, same operation order).
function escapeCount(px, py) {
  const cx = xmin + (px + 0.5) * step;
  const cy = ymax - (py + 0.5) * step;
  let x = 0;
  let y = 0;
  let it = 0;
  while (it < maxIter && x * x + y * y <= 4) {
    const xt = x * x - y * y + cx;
    y = 2 * x * y + cy;
    x = xt;
    it++;
  }
  return it;
}

const counts = gpuarray.empty([height, width], 'int32');
const block = [32, 8];
const grid = [Math.ceil(width / block[0]), Math.ceil(height / block[1])];
const start = new driver.Event().record();
mandelbrot(counts, width, height, xmin, ymax, step, maxIter, { block, grid });
const end = new driver.Event().record();
end.synchronize();
const host = counts.get(); // Int32Array, row-major
counts.dispose();
const inSet = host.reduce((s, c) => s + (c === maxIter ? 1 : 0), 0);
console.log(`${width}x${height} pixels, up to ${maxIter} iterations: kernel ${end.timeSince(start).toFixed(2)} ms; ` +
  `${(100 * inSet / host.length).toFixed(2)}% of the pixels in the set`);

// CPU check on a grid of sample pixels (every 23rd column of every 17th row, plus the corners).
let checked = 0;
const samples = [[0, 0], [width - 1, 0], [0, height - 1], [width - 1, height - 1]];
for (let py = 0; py < height; py += 17) for (let px = 0; px < width; px += 23) samples.push([px, py]);
for (const [px, py] of samples) {
  const want = escapeCount(px, py);
  const got = host[py * width + px];
  if (got !== want) {
    console.error(`MISMATCH at pixel (${px}, ${py}): GPU ${got} iterations, CPU ${want}`);
    process.exit(1);
  }
  checked++;
}
console.log(`${checked} sample pixels equal the CPU's escape counts: OK`);

// Colour: black inside, a smooth palette outside (log-scaled count), then write the PNG.
const png = new PNG({ width, height });
for (let i = 0; i < host.length; i++) {
  const c = host[i];
  const o = 4 * i;
  if (c === maxIter) {
    png.data[o] = png.data[o + 1] = png.data[o + 2] = 0;
  } else {
    const t = Math.log(c + 1) / Math.log(maxIter);
    png.data[o] = Math.round(255 * Math.min(1, 9 * (1 - t) * t * t * t));
    png.data[o + 1] = Math.round(255 * Math.min(1, 15 * (1 - t) * (1 - t) * t * t));
    png.data[o + 2] = Math.round(255 * Math.min(1, 8.5 * (1 - t) * (1 - t) * (1 - t) * t));
  }
  png.data[o + 3] = 255;
}
fs.writeFileSync(outPath, PNG.sync.write(png));
const written = PNG.sync.read(fs.readFileSync(outPath));
if (written.width !== width || written.height !== height) {
  console.error(`MISMATCH: ${outPath} reads back as ${written.width}x${written.height}`);
  process.exit(1);
}
console.log(`wrote ${outPath} (${width}x${height}): OK`);
console.log('All checks passed.');
