/**
 * User kernel argument lists (PyCUDA's C declarator strings, "const float *x, float a"): parsed
 * once, then each call's arguments are checked and turned into parameter values.
 */
import { DType, Scalar, coerceArg } from '../base/dtype';
import { describe, typeError } from '../base/errors';
import { GPUArray } from '../array/gpuarray';
import { paramDType } from '../cuda/launch';
import { ParamValue } from '../cuda/args';
import { IDENT, floatTypes } from '../engine/templates/elementwise_kernel';

/** One declared parameter: an array (pointer, with its element dtype when known) or a scalar. */
export interface UserParam {
  name: string;
  pointer: boolean;
  /** Element dtype (pointers) or value dtype (scalars); null for pointers to other types. */
  dtype: DType | null;
}

export interface UserArgs {
  /** The declarations, for the kernel's parameter list. */
  decls: string;
  params: UserParam[];
  /** Checks one call's arguments (in declaration order) and makes parameter values. */
  pack(args: unknown[], what: string): { values: ParamValue[]; arrays: GPUArray[] };
}

/** A trailing call-options object: a plain object (not an array, GPUArray or Scalar). */
export function isOptions(v: unknown): boolean {
  return typeof v === 'object' && v !== null && !(v instanceof GPUArray) && !(v instanceof Scalar) &&
    Object.getPrototypeOf(v) === Object.prototype;
}

const QUALIFIERS = new Set(['const', 'volatile', '__restrict__', '__restrict', 'restrict']);

/**
 * The device code placed before a ReductionKernel/GenericScanKernel: `preamble`, after the 16-bit
 * float types (`half`, `__nv_bfloat16`…, as ElementwiseKernel has them) when the declarations or
 * the preamble name one.
 */
export function userPreamble(decls: string, preamble: string | undefined): string | undefined {
  if (!/\b(half|__half|__nv_bfloat16|nv_bfloat16)\b/.test(`${decls}\n${preamble ?? ''}`)) return preamble;
  return `${floatTypes(preamble ?? '')}\n${preamble ?? ''}`;
}

/**
 * Parses a declarator list. TypeError for a scalar of a type that cannot be passed from JS, and for
 * a name the generated kernel defines itself (`reserved`, or starting with nc_).
 */
export function parseArguments(decls: string, what: string, reserved: readonly string[] = []): UserArgs {
  if (typeof decls !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `${what}: arguments must be a string of C declarations`);
  const params: UserParam[] = decls.split(',').map((d) => d.trim()).filter(Boolean).map((d) => {
    const pointer = d.includes('*') || d.includes('[');
    const words = d.replace(/[*[\]]/g, ' ').split(/\s+/).filter((w) => w && !QUALIFIERS.has(w));
    if (words.length < 2) throw typeError('ERR_INVALID_ARG_VALUE', `${what}: cannot parse the argument declaration "${d}"`);
    const name = words[words.length - 1];
    const ctype = words.slice(0, -1).join(' ');
    const dt = paramDType(ctype) ?? null;
    if (!pointer && !dt) throw typeError('ERR_INVALID_ARG_VALUE', `${what}: scalar argument "${d}" has a type nodecuda cannot pass (${ctype})`);
    return { name, pointer, dtype: dt };
  });
  const names = new Set<string>();
  for (const p of params) {
    if (names.has(p.name)) throw typeError('ERR_INVALID_ARG_VALUE', `${what}: argument "${p.name}" is declared twice`);
    if (reserved.includes(p.name) || p.name.startsWith('nc_')) {
      throw typeError('ERR_INVALID_ARG_VALUE', `${what}: the argument name "${p.name}" is reserved (the kernel defines ${reserved.map((r) => `"${r}"`).join(', ')}${reserved.length ? ' and ' : ''}names starting with nc_); rename it`);
    }
    names.add(p.name);
  }
  return {
    decls,
    params,
    pack(args: unknown[], callWhat: string) {
      if (args.length !== params.length) {
        throw typeError('ERR_INVALID_ARG_COUNT', `${callWhat}: expected ${params.length} argument(s) (${params.map((p) => p.name).join(', ')}), got ${args.length}`);
      }
      const values: ParamValue[] = [];
      const arrays: GPUArray[] = [];
      params.forEach((p, i) => {
        const a = args[i];
        if (p.pointer) {
          if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `${callWhat}: argument "${p.name}" must be a GPUArray. Received ${describe(a)}`);
          a.check();
          // Same element type (char/unsigned char also take bool arrays: one byte, 0/1).
          const ok = !p.dtype || a.dtype === p.dtype || (a.dtype.name === 'bool' && p.dtype.bytes === 1 && p.dtype.kind !== 'f');
          if (!ok) {
            throw typeError('ERR_INVALID_DTYPE', `${callWhat}: argument "${p.name}" is declared ${p.dtype!.name}; got a ${a.dtype.name} array`);
          }
          if (!a.flags.cContiguous) {
            throw typeError('ERR_NOT_CONTIGUOUS', `${callWhat}: argument "${p.name}" must be C-contiguous (make a contiguous copy with .copy())`);
          }
          if (arrays.length && a.context !== arrays[0].context) {
            throw typeError('ERR_DEVICE_MISMATCH', `${callWhat}: arrays live on different devices/contexts`);
          }
          arrays.push(a);
          values.push({ ptr: a.address });
        } else {
          const dt = p.dtype!;
          values.push({ dtype: dt, value: coerceArg(dt, a, `${callWhat}: argument "${p.name}"`) });
        }
      });
      return { values, arrays };
    },
  };
}

// ElementwiseKernel's construction arguments (both forms: kernels/elementwise.ts, kernels/generic.ts).

export function str(v: unknown, what: string): string {
  if (v === undefined) return '';
  if (typeof v !== 'string') throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel: ${what} must be a string. Received ${describe(v)}`);
  return v;
}

export function strings(v: unknown): string[] {
  if (v === undefined) return [];
  if (!Array.isArray(v) || v.some((x) => typeof x !== 'string')) {
    throw typeError('ERR_INVALID_ARG_TYPE', `ElementwiseKernel: options.options must be an array of strings. Received ${describe(v)}`);
  }
  return v as string[];
}

export function kernelName(v: unknown): string {
  if (v === undefined) return 'kernel';
  if (typeof v !== 'string' || !IDENT.test(v)) {
    throw typeError('ERR_INVALID_ARG_VALUE', `ElementwiseKernel: name must be a C identifier. Received ${describe(v)}`);
  }
  return v;
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  if (typeof v !== 'object' || v === null || Array.isArray(v) || v instanceof GPUArray || v instanceof Scalar) return false;
  const proto = Object.getPrototypeOf(v);
  return (proto === Object.prototype || proto === null) && !('re' in v && 'im' in v);
}

export function contiguityError(what: string): TypeError {
  return typeError('ERR_NOT_CONTIGUOUS', `${what} must be C-contiguous; pass a contiguous copy (a.copy())`);
}
