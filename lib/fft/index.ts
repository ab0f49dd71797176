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
export function version(): {
  /** The version cufftGetVersion reports. */
  version: number;
  /** The libcufft file opened. */
  path: string;
} {
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
  // The transforms' type is an alias (FftTransform, FftTransformN), so TypeDoc does not carry
  // their doc comments (lib/fft/fft.ts) over to these members: each repeats its summary.
  /** Discrete Fourier transform along one axis (numpy.fft.fft). */
  fft: t.fft,
  /** Inverse DFT along one axis (numpy.fft.ifft). */
  ifft: t.ifft,
  /** DFT of real input, the n/2+1 non-negative frequencies (numpy.fft.rfft). */
  rfft: t.rfft,
  /** Inverse of rfft: real output of length `n` (default 2·(m − 1)) (numpy.fft.irfft). */
  irfft: t.irfft,
  /** 2-D DFT over the last two axes, or `axes` (numpy.fft.fft2). */
  fft2: t.fft2,
  /** Inverse 2-D DFT (numpy.fft.ifft2). */
  ifft2: t.ifft2,
  /** 2-D DFT of real input (numpy.fft.rfft2). */
  rfft2: t.rfft2,
  /** Inverse of rfft2 (numpy.fft.irfft2). */
  irfft2: t.irfft2,
  /** N-D DFT over `axes` (default: all, or the last `s.length`) (numpy.fft.fftn). */
  fftn: t.fftn,
  /** Inverse N-D DFT (numpy.fft.ifftn). */
  ifftn: t.ifftn,
  /** N-D DFT of real input; the last of `axes` is halved (numpy.fft.rfftn). */
  rfftn: t.rfftn,
  /** Inverse of rfftn (numpy.fft.irfftn). */
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

export type { FftNorm, FftOptions, FftNOptions, FftTransform, FftTransformN } from './fft';
export type { FreqOptions, ShiftOptions } from './freq';
