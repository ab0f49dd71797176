/**
 * A small memo of matmul plans by what a plan depends on: both operands' shapes, (byte) strides
 * and dtypes, the `out` array's (or none), the precision and whether A is conjugated. A repeated
 * product of the same layouts (the usual case: a loop, a layer) then skips planning (shape
 * rules, dtype promotion, operand layouts, packing the cuBLAS parameters), which costs several
 * microseconds of host time per call, more than cuBLAS's own launch.
 *
 * Entries hold shapes, strides and dtypes (frozen; never an array, which would keep its memory),
 * most recently used first, at most `capacity` of them. A lookup compares a few numbers per entry;
 * a GPUArray's shape and strides are frozen arrays, kept as they are, so a call with the arrays of
 * the last one compares them by identity. Only what the key decides goes in a plan: whatever
 * depends on the arrays themselves (their memory, whether they are disposed, the stream) is
 * checked on every call.
 */
import { DType } from '../base/dtype';

/** What a plan depends on, of one array (a GPUArray is one). */
export interface ArrayLayout {
  readonly shape: readonly number[];
  readonly strides: readonly number[];
  readonly dtype: DType;
}

interface Entry<T> {
  a: ArrayLayout;
  b: ArrayLayout;
  out: ArrayLayout | null;
  precision: unknown;
  conjA: boolean;
  value: T;
}

function sameNumbers(p: readonly number[], q: readonly number[]): boolean {
  if (p === q) return true;
  if (p.length !== q.length) return false;
  for (let i = 0; i < p.length; i++) if (p[i] !== q[i]) return false;
  return true;
}

function sameLayout(p: ArrayLayout, q: ArrayLayout): boolean {
  return p.dtype === q.dtype && sameNumbers(p.shape, q.shape) && sameNumbers(p.strides, q.strides);
}

/** Shape, strides and dtype of `x` alone (not `x`: a GPUArray would keep its memory alive), frozen. */
function layoutOf(x: ArrayLayout): ArrayLayout {
  const frozen = (v: readonly number[]): readonly number[] => (Object.isFrozen(v) ? v : Object.freeze(v.slice()));
  return Object.freeze({ shape: frozen(x.shape), strides: frozen(x.strides), dtype: x.dtype });
}

/**
 * @internal Plans (any value) by operand layouts, bounded: at most `capacity` entries, the least
 * recently used dropped first.
 */
export class PlanMemo<T> {
  readonly #entries: Entry<T>[] = [];
  constructor(readonly capacity = 16) {}

  /** Number of plans held. */
  get size(): number {
    return this.#entries.length;
  }

  /** The plan stored for this key, or undefined; a hit becomes the most recently used. */
  get(a: ArrayLayout, b: ArrayLayout, out: ArrayLayout | null, precision: unknown, conjA: boolean): T | undefined {
    const entries = this.#entries;
    for (let i = 0; i < entries.length; i++) {
      const e = entries[i];
      if (e.precision !== precision || e.conjA !== conjA || !sameLayout(e.a, a) || !sameLayout(e.b, b)) continue;
      if (out === null ? e.out !== null : e.out === null || !sameLayout(e.out, out)) continue;
      for (let j = i; j > 0; j--) entries[j] = entries[j - 1];
      entries[0] = e;
      return e.value;
    }
    return undefined;
  }

  /** Stores `value` for this key (a key not held: set() follows a missed get()) as the most recently used. */
  set(a: ArrayLayout, b: ArrayLayout, out: ArrayLayout | null, precision: unknown, conjA: boolean, value: T): void {
    const entries = this.#entries;
    entries.unshift({ a: layoutOf(a), b: layoutOf(b), out: out && layoutOf(out), precision, conjA, value });
    if (entries.length > this.capacity) entries.length = this.capacity;
  }

  /** Forgets every plan. */
  clear(): void {
    this.#entries.length = 0;
  }
}
