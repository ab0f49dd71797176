'use strict';
// OpenGL interop, headless (no display): a CUDA kernel writes an image straight into a GL pixel
// buffer (mapped for CUDA, no host round trip), GL uploads it into a texture on the GPU and draws
// it shaded into a framebuffer, and the pixels are read back, checked against a CPU computation
// and saved as a PNG (pngjs). Needs the NVIDIA driver's EGL part and libEGL.so.1 (package libegl1).
// Run with `node examples/gl-interop.js [output.png]` (default: gl-interop.png in os.tmpdir()).
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const cuda = require('nodecuda');
const { gl, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}
const { PNG } = require('pngjs'); // a devDependency of nodecuda: `npm install pngjs` elsewhere

const outPath = path.resolve(process.argv[2] ?? path.join(os.tmpdir(), 'gl-interop.png'));
const width = 320;
const height = 240;

const avail = gl.availability();
if (!avail.interop) {
  console.log(`OpenGL interop is not available here: ${avail.message || 'no EGL device is a CUDA device'}`);
  process.exit(1);
}

// 1. A headless GL context on the EGL device that is CUDA device 0, current on this thread.
const ctx = gl.createHeadlessContext({ device: 0 });
console.log(`GL: ${ctx.info.renderer}, OpenGL ${ctx.info.version.split(' ')[0]} (${ctx.platform})`);

// 2. A pixel buffer (RGBA8) shared with CUDA; a kernel fills it while it is mapped.
const pbo = ctx.createBuffer(width * height * 4, { target: gl.GL.PIXEL_UNPACK_BUFFER, usage: gl.GL.STREAM_DRAW });
const reg = new gl.RegisteredBuffer(pbo, gl.graphicsRegisterFlags.WRITE_DISCARD);
const mod = new SourceModule(`
__global__ void pattern(uchar4 *px, int w, int h) {
  int x = blockIdx.x * blockDim.x + threadIdx.x, y = blockIdx.y * blockDim.y + threadIdx.y;
  if (x >= w || y >= h) return;
  int cx = x - w / 2, cy = y - h / 2;
  unsigned char ring = ((cx * cx + cy * cy) / 400) % 2 ? 255 : 40;
  px[y * w + x] = make_uchar4((x * 255) / (w - 1), (y * 255) / (h - 1), ring, 255);
}`);
const mapping = reg.map();
const [ptr, bytes] = mapping.devicePtrAndSize();
mod.getFunction('pattern')(ptr, width, height, { block: [16, 16], grid: [Math.ceil(width / 16), Math.ceil(height / 16)] });
mapping.unmap(); // GL may use the buffer again; the kernel is ordered before GL's next use
console.log(`kernel wrote ${bytes} bytes into GL buffer ${pbo} through CUDA`);

// 3. GL: pixel buffer -> texture (a GPU copy), then a shaded full-screen draw into a framebuffer.
const tex = ctx.createTexture(width, height);
ctx.writeTexture(tex, { buffer: pbo }, { width, height });
const target = ctx.createTexture(width, height);
const fbo = ctx.createFramebuffer(target);
const program = ctx.createProgram(`#version 330 core
void main() {
  vec2 p = vec2((gl_VertexID << 1) & 2, gl_VertexID & 2);
  gl_Position = vec4(p * 2.0 - 1.0, 0.0, 1.0);
}`, `#version 330 core
uniform sampler2D tex;
uniform float height;
out vec4 color;
void main() {
  vec4 c = texelFetch(tex, ivec2(gl_FragCoord.xy), 0);
  float shade = 0.25 + 0.75 * (floor(gl_FragCoord.y) / (height - 1.0)); // darker at the bottom row
  color = vec4(c.rgb * shade, c.a);
}`);
ctx.drawFullscreen(program, fbo, tex, width, height, { height });
const pixels = ctx.readPixels(fbo, 0, 0, width, height);

// 4. The same image on the CPU; GL rounds to 8 bits, so allow one step of difference.
let worst = 0;
for (let y = 0; y < height; y++) {
  const shade = 0.25 + 0.75 * (y / (height - 1));
  for (let x = 0; x < width; x++) {
    const cx = x - (width >> 1), cy = y - (height >> 1);
    const ring = Math.trunc((cx * cx + cy * cy) / 400) % 2 ? 255 : 40;
    const want = [Math.trunc((x * 255) / (width - 1)) * shade, Math.trunc((y * 255) / (height - 1)) * shade, ring * shade, 255];
    for (let c = 0; c < 4; c++) worst = Math.max(worst, Math.abs(pixels[(y * width + x) * 4 + c] - want[c]));
  }
}
const ok = worst <= 1;
console.log(`${width}x${height} pixels against the CPU (largest difference ${worst.toFixed(2)}): ${ok ? 'OK' : 'MISMATCH'}`);

// 5. PNG rows go top first; GL's rows are bottom first.
const png = new PNG({ width, height });
for (let y = 0; y < height; y++) {
  Buffer.from(pixels.buffer, (height - 1 - y) * width * 4, width * 4).copy(png.data, y * width * 4);
}
fs.writeFileSync(outPath, PNG.sync.write(png));
console.log(`wrote ${outPath} (${width}x${height}): OK`);

reg.unregister();
for (const t of [tex, target]) ctx.deleteTexture(t);
ctx.deleteFramebuffer(fbo);
ctx.deleteProgram(program);
ctx.deleteBuffer(pbo);
ctx.dispose();
if (!ok) process.exit(1);
console.log('All checks passed.');
