'use strict';
// FFT (cuFFT): the spectrum of a signal with two tones, whose peaks are found and checked against
// the known frequencies and amplitudes, and a convolution through rfft/irfft checked against a
// direct convolution on the CPU. Run with `node examples/fft-spectrum.js`.
const cuda = require('nodecuda');
const { fft, gpuarray } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}

// --- spectrum: 1.0 at 50 Hz + 0.5 at 120 Hz, sampled at 1024 Hz for 4 s ---------------------
const rate = 1024;
const n = 4 * rate;
const tones = [[50, 1.0], [120, 0.5]];
const host = new Float32Array(n);
for (let i = 0; i < n; i++) for (const [f, amp] of tones) host[i] += amp * Math.sin((2 * Math.PI * f * i) / rate);

const x = gpuarray.toGpu(host);
const X = fft.rfft(x, { norm: 'forward' }); // complex64, n/2 + 1 bins; 'forward': |X[k]| = amplitude / 2
const freqs = fft.rfftfreq(n, 1 / rate).get();
const spec = X.get(); // interleaved re, im
const mag = new Float64Array(X.size);
for (let k = 0; k < X.size; k++) mag[k] = 2 * Math.hypot(spec[2 * k], spec[2 * k + 1]);
const peaks = [...mag.keys()].sort((a, b) => mag[b] - mag[a]).slice(0, 2).sort((a, b) => a - b);
for (const [i, k] of peaks.entries()) {
  const [f, amp] = tones[i];
  console.log(`peak ${i + 1}: ${freqs[k]} Hz, amplitude ${mag[k].toFixed(5)} (expected ${f} Hz, ${amp})`);
  if (freqs[k] !== f) fail(`peak ${i + 1} at ${freqs[k]} Hz, expected ${f} Hz`);
  if (Math.abs(mag[k] - amp) > 1e-4) fail(`peak ${i + 1} amplitude ${mag[k]}, expected ${amp}`);
}
const rest = Math.max(...mag.filter((_, k) => !peaks.includes(k)));
console.log(`largest other bin: ${rest.toExponential(2)}`);
if (rest > 1e-4) fail(`leakage ${rest} outside the two tones`);
console.log('peaks at 50 Hz and 120 Hz: OK');

// --- convolution: irfft(rfft(a) * rfft(b)) with zero padding == direct convolution -----------
const la = 1000;
const lb = 61;
const len = la + lb - 1;
const nfft = 2048; // ≥ len: no wrap-around
const a = Float32Array.from({ length: la }, (_, i) => Math.sin(i / 7) + ((i * 37) % 11) / 11);
const b = Float32Array.from({ length: lb }, (_, i) => Math.exp(-(((i - 30) / 10) ** 2)));
const A = fft.rfft(gpuarray.toGpu(a), { n: nfft });
const B = fft.rfft(gpuarray.toGpu(b), { n: nfft });
const conv = fft.irfft(A.mul(B), { n: nfft }).index(`0:${len}`).get();
let err = 0;
let scale = 0;
for (let i = 0; i < len; i++) {
  let want = 0;
  for (let j = Math.max(0, i - lb + 1); j <= Math.min(i, la - 1); j++) want += a[j] * b[i - j];
  err = Math.max(err, Math.abs(conv[i] - want));
  scale = Math.max(scale, Math.abs(want));
}
console.log(`FFT convolution of ${la} and ${lb} samples (${len} outputs): max error ${err.toExponential(2)} of ${scale.toFixed(3)}`);
if (!(err <= 1e-5 * scale * Math.log2(nfft))) fail(`convolution error ${err}`);
console.log('FFT convolution equals the direct convolution: OK');
console.log('All checks passed.');
