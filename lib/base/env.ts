/**
 * Tuning variables (`NODECUDA_*` in the environment), read once when the module that uses them
 * loads. A set but invalid value is a RangeError `ERR_INVALID_ENV` that names the variable and
 * says what it accepts, instead of silently falling back to the default (or launching with a
 * block size the kernels were not written for).
 */
import { rangeError } from './errors';

/** What a numeric tuning variable accepts. */
export interface EnvRule {
  min: number;
  max: number;
  /** Integers only (default true). */
  integer?: boolean;
  /** The value must be a multiple of this (e.g. 32: whole warps). */
  multipleOf?: number;
  /** The value must be one of these. */
  oneOf?: readonly number[];
}

/**
 * The number in `process.env[name]`, or `dflt` when it is unset or empty.
 * @example
 * const BLOCK = envNumber('NODECUDA_EW_BLOCK', 128, { min: 32, max: 1024, multipleOf: 32 });
 */
export function envNumber(name: string, dflt: number, rule: EnvRule, env: NodeJS.ProcessEnv = process.env): number {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  const v = Number(raw);
  const ok = Number.isFinite(v) && v >= rule.min && v <= rule.max && (rule.integer === false || Number.isInteger(v)) &&
    (!rule.multipleOf || v % rule.multipleOf === 0) && (!rule.oneOf || rule.oneOf.includes(v));
  if (ok) return v;
  const want = rule.oneOf ? `one of ${rule.oneOf.join(', ')}`
    : `${rule.integer === false ? 'a number' : 'an integer'} in [${rule.min}, ${rule.max}]` +
      (rule.multipleOf ? `, a multiple of ${rule.multipleOf}` : '');
  throw rangeError('ERR_INVALID_ENV', `The environment variable ${name}=${JSON.stringify(raw)} is invalid: ` +
    `it must be ${want} (unset it for the default, ${dflt})`);
}

/**
 * An on/off tuning variable: unset or empty → `dflt`; '1' → true; '0' → false; else ERR_INVALID_ENV.
 * @example
 * const FULL_TILES = envFlag('NODECUDA_SCAN_FULL', true);
 */
export function envFlag(name: string, dflt: boolean, env: NodeJS.ProcessEnv = process.env): boolean {
  const raw = env[name];
  if (raw === undefined || raw.trim() === '') return dflt;
  if (raw.trim() === '1') return true;
  if (raw.trim() === '0') return false;
  throw rangeError('ERR_INVALID_ENV', `The environment variable ${name}=${JSON.stringify(raw)} is invalid: it must be 0 or 1`);
}
