/**
 * cuFFT's native entry points (src/cufft.cc). libcufft is opened on first use; failures are
 * CufftError (`CUFFT_NOT_FOUND` when the library is missing). Plans, geometry and the cache are
 * lib/fft's.
 */
import { CufftError } from '../base/errors';
import { native } from './native';

let classGiven = false; // per environment: each worker loads this module anew

function lib(): NativeAddon.Addon {
  if (!classGiven) {
    native.cufftSetErrorClass(CufftError);
    classGiven = true;
  }
  return native;
}

/** cufftType values (cufft.h). */
export const CUFFT_TYPE = Object.freeze({ C2C: 0x29, R2C: 0x2a, C2R: 0x2c, Z2Z: 0x69, D2Z: 0x6a, Z2D: 0x6c });

/** [cufftGetVersion(), library path]; CufftError CUFFT_NOT_FOUND without libcufft. */
export function cufftVersion(): [number, string] {
  return lib().cufftVersion();
}

/** A plan in the current context → [plan, work area bytes] (cufftMakePlanMany64). */
export function cufftPlan(type: number, n: number[], inembed: number[], istride: number, idist: number,
  onembed: number[], ostride: number, odist: number, batch: number): [NativeAddon.CufftPlanHandle, number] {
  return lib().cufftPlan(type, n, inembed, istride, idist, onembed, ostride, odist, batch);
}

/** Runs `plan` on `stream` with the given work area (0n: none). */
export function cufftExec(plan: NativeAddon.CufftPlanHandle, stream: NativeAddon.StreamHandle | null,
  input: bigint, output: bigint, work: bigint, inverse: boolean): void {
  lib().cufftExec(plan, stream, input, output, work, inverse);
}

/** Frees a plan now (idempotent). */
export function cufftDestroy(plan: NativeAddon.CufftPlanHandle): void {
  lib().cufftDestroy(plan);
}
