/**
 * Complex parts as NumPy has them: `a.real` and `a.imag` (gpuarray.real / gpuarray.imag) are views
 * of a complex array's parts, and `a.conj()` its conjugate. Registered as GPUArray's methods
 * (methods.ts says why a registry).
 */
import { DTYPES, DType } from '../base/dtype';
import { GPUArray, arrayArg } from './gpuarray';
import { registerArrayMethods } from './methods';
import { OpOptions, apply as applyOp } from './operators';
import { apply as applyMath } from './cumath';
import { zerosLike } from './creation';

/** The dtype of a complex dtype's parts (undefined for a real one). */
function partOf(d: DType): DType | undefined {
  return d.name === 'complex64' ? DTYPES.float32 : d.name === 'complex128' ? DTYPES.float64 : undefined;
}

/**
 * The real part of `a` (NumPy's `a.real`): for a complex array a view of its real parts, of the
 * part dtype (float32 for complex64, float64 for complex128), sharing its memory with the same
 * byte strides, so writes through it (`set`, `fill`, `out:`) change `a`; any other array is
 * returned itself (NumPy too returns the array itself).
 * @example
 * const z = gpuarray.toGpu([{ re: 1, im: 2 }], { dtype: 'complex64' });
 * gpuarray.real(z).get(); // Float32Array [1]
 * gpuarray.real(z).fill(0); // z is now [0+2j]
 */
export function real(a: GPUArray): GPUArray {
  const x = arrayArg(a, 'a');
  const part = partOf(x.dtype);
  return part ? x.view_(x.shape, x.strides, x.offset, part) : x;
}

/**
 * The imaginary part of `a` (NumPy's `a.imag`): for a complex array a view of its imaginary parts
 * (the real view moved by one part: same strides, offset + 4 or 8 bytes), written through like
 * `real`; for any other array a NEW array of zeros of its shape and dtype (NumPy returns a
 * read-only one: writing to this one changes nothing in `a`; dispose it when done).
 * @example
 * const im = gpuarray.imag(z);          // a view
 * im.set(new Float32Array([5]));        // z is now [1+5j]
 */
export function imag(a: GPUArray): GPUArray {
  const x = arrayArg(a, 'a');
  const part = partOf(x.dtype);
  return part ? x.view_(x.shape, x.strides, x.offset + part.bytes, part) : zerosLike(x);
}

/**
 * GPUArray.conj(): the complex conjugate (cumath.conj) as a new array; for real dtypes a copy of
 * the same dtype (NumPy's and PyCUDA's `a.conj()` return the array itself there: a copy is never
 * the array, so disposing it cannot free `a`). `out` and `stream` as the operators take them.
 * @example
 * const zc = conj(z);
 */
export function conj(a: GPUArray, opts?: OpOptions): GPUArray {
  const x = arrayArg(a, 'a');
  return x.dtype.kind === 'c' ? applyMath('conj', [x], opts) : applyOp('copy', [x], opts);
}

registerArrayMethods({ real, imag, conj });
