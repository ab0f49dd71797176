/**
 * The `fft` namespace: numpy.fft over cuFFT (libcufft opened on first use; CufftError
 * `CUFFT_NOT_FOUND` without it). See docs/fft.md.
 */
import * as t from './fft';
import * as f from './freq';
import * as p from './plan';
import { cufftVersion } from '../cuda/cufft';

/**
 * The cuFFT library in use: its version (cufftGetVersion, e.g. 12000) and path. Opens it on the
 * first call; CufftError `CUFFT_NOT_FOUND` (the message says what to install) when it is missing.
 * @example
 * fft.version(); // { version: 12000, path: '/usr/local/cuda/lib64/libcufft.so.12' }
 */
export function version(): { version: number; path: string } {
  const [v, path] = cufftVersion();
  return { version: v, path };
}

/**
 * numpy.fft on the GPU (cuFFT).
 * @example
 * const X = fft.rfft(signal, { norm: 'ortho' });
 * const freqs = fft.rfftfreq(signal.size, 1 / 48000);
 */
export const fft = Object.freeze({
  fft: t.fft,
  ifft: t.ifft,
  rfft: t.rfft,
  irfft: t.irfft,
  fft2: t.fft2,
  ifft2: t.ifft2,
  rfft2: t.rfft2,
  irfft2: t.irfft2,
  fftn: t.fftn,
  ifftn: t.ifftn,
  rfftn: t.rfftn,
  irfftn: t.irfftn,
  fftfreq: f.fftfreq,
  rfftfreq: f.rfftfreq,
  fftshift: f.fftshift,
  ifftshift: f.ifftshift,
  clearPlanCache: p.clearPlanCache,
  planCacheInfo: p.planCacheInfo,
  setPlanCacheLimit: p.setPlanCacheLimit,
  version,
});

export type { FftNorm, FftOptions, FftNOptions } from './fft';
export type { FreqOptions, ShiftOptions } from './freq';
