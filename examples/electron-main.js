'use strict';
// nodecuda in Electron's main process. Under Electron (`npx electron examples/electron-main.js`,
// with electron installed) it opens no window: once the app is ready it runs compute() in the
// main process, logs the result and quits. Under plain Node (`node examples/electron-main.js`,
// process.versions.electron undefined) it runs the same compute() and prints the result, so it
// can be tested without Electron. nodecuda is a Node-API addon that never creates external
// ArrayBuffers, so the same build loads in Node and in Electron (V8 memory cage included).
// In a real app, run GPU work here or in a worker_thread / utility process, and send results to
// renderers over IPC; renderers should not load native addons.
const cuda = require('nodecuda');

/**
 * The app's GPU work: y = a*x + y with a SourceModule kernel on GPUArrays, then a dot product,
 * checked against the CPU. Returns a plain object (what you would send over IPC).
 */
function compute() {
  const { gpuarray, SourceModule } = cuda;
  const n = 1 << 20;
  const a = 2.5;
  const hx = Float32Array.from({ length: n }, (_, i) => (i % 1024) / 1024);
  const hy = Float32Array.from({ length: n }, (_, i) => ((i * 7) % 512) / 256);
  const mod = new SourceModule(`
__global__ void saxpy(float *y, const float *x, float a, int n)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] = a * x[i] + y[i];
}
`);
  const saxpy = mod.getFunction('saxpy');
  return cuda.tidy(() => {
    const x = gpuarray.toGpu(hx);
    const y = gpuarray.toGpu(hy);
    saxpy(y, x, a, n, { block: [256], grid: [Math.ceil(n / 256)] });
    const got = y.get();
    let maxError = 0;
    for (let i = 0; i < n; i++) maxError = Math.max(maxError, Math.abs(got[i] - (a * hx[i] + hy[i])));
    const dot = gpuarray.dot(x, y, { dtype: 'float64' }).item();
    let cpuDot = 0;
    for (let i = 0; i < n; i++) cpuDot += hx[i] * got[i];
    return {
      device: new cuda.driver.Device(0).name(),
      n,
      maxError, // one float32 rounding (or none, with a fused multiply-add) of values below 5
      dot,
      dotRelativeError: Math.abs(dot - cpuDot) / Math.abs(cpuDot),
      ok: maxError <= 1e-6 && Math.abs(dot - cpuDot) <= 1e-9 * Math.abs(cpuDot),
    };
  });
}

function report(r, where) {
  console.log(`${where}: saxpy on ${r.n} floats on ${r.device}: max error ${r.maxError.toExponential(2)}; ` +
    `dot ${r.dot} (relative error ${r.dotRelativeError.toExponential(2)})`);
  if (!r.ok) {
    console.error('MISMATCH: results differ from the CPU');
    return false;
  }
  console.log(`${where}: compute() OK`);
  console.log('All checks passed.');
  return true;
}

const SKIP = 'nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.';

if (process.versions.electron) {
  // Electron's main process. `require('electron')` only exists here.
  const { app } = require('electron');
  app.whenReady().then(() => {
    if (!cuda.isAvailable()) {
      console.log(SKIP);
      app.exit(0);
      return;
    }
    app.exit(report(compute(), `Electron ${process.versions.electron} main process`) ? 0 : 1);
  }).catch((e) => {
    console.error(e);
    app.exit(1);
  });
} else {
  if (!cuda.isAvailable()) {
    console.log(SKIP);
    process.exit(0);
  }
  process.exitCode = report(compute(), `Node ${process.version} (no Electron)`) ? 0 : 1;
}
