/**
 * tidy() and keep(): scopes that dispose the arrays created inside them (GPUArray's constructor
 * registers each new array with the innermost scope, array/gpuarray.ts `scopes`).
 */
import { describe, typeError } from '../base/errors';
import { DeviceAllocation } from '../cuda/memory';
import { GPUArray, scopes } from './gpuarray';

/**
 * Runs `fn` and disposes every array it created, except those in its result (an array, or arrays
 * and plain objects nesting them up to 4 levels) and the owners of returned views. A view returned
 * without its owner takes the owner's place (like tfjs's reference counting): disposing the view
 * (the last one, when several views of one array are returned) frees the memory. Nested tidy()
 * hands what it keeps to the enclosing scope. `fn` must be synchronous: a Promise result is a
 * TypeError `ERR_INVALID_RETURN_VALUE` (what it created is disposed).
 * @example
 * const c = cuda.tidy(() => a.add(b).mul(2)); // the temporary a+b is freed
 * const row = cuda.tidy(() => a.mul(2).index(0)); // a view; row.dispose() frees a*2
 */
export function tidy<T>(fn: () => T): T {
  if (typeof fn !== 'function') throw typeError('ERR_INVALID_ARG_TYPE', `tidy(fn) takes a function. Received ${describe(fn)}`);
  scopes.push([]);
  let result: T;
  try {
    result = fn();
    if (result !== null && typeof result === 'object' && typeof (result as { then?: unknown }).then === 'function') {
      throw typeError('ERR_INVALID_RETURN_VALUE', 'tidy(fn): fn must be synchronous (it returned a Promise); ' +
        'arrays it creates after an await would escape the scope');
    }
  } catch (e) {
    for (const a of scopes.pop()!) a.dispose();
    throw e;
  }
  const created = scopes.pop()!;
  const returned = new Set<GPUArray>();
  const keep = new Set<DeviceAllocation>();
  const views = new Map<GPUArray, GPUArray[]>(); // returned views by owner
  const visit = (v: unknown, depth: number): void => {
    if (v instanceof GPUArray) {
      if (v.disposed || returned.has(v)) return;
      returned.add(v);
      keep.add(v.alloc);
      if (v.base) views.set(v.base, [...(views.get(v.base) ?? []), v]);
    } else if (depth < 4 && Array.isArray(v)) {
      v.forEach((x) => visit(x, depth + 1));
    } else if (depth < 4 && v && typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype) {
      Object.values(v).forEach((x) => visit(x, depth + 1));
    }
  };
  visit(result, 0);
  for (const a of created) {
    if (keep.has(a.alloc)) {
      a.handOver_(returned.has(a) ? [] : views.get(a) ?? []);
      if (scopes.length) scopes[scopes.length - 1].push(a); // belongs to the enclosing scope now
    } else {
      a.dispose();
    }
  }
  return result;
}

/**
 * Keeps `a` out of every enclosing tidy() scope: it is not disposed when they end (a view keeps
 * its owner too). Returns `a`. Like tfjs's keep(): for arrays kept in outer variables or caches.
 * @example
 * let weights; cuda.tidy(() => { weights = cuda.keep(gpuarray.zeros([10], 'float32')); return a.add(b); });
 */
export function keep<T extends GPUArray>(a: T): T {
  if (!(a instanceof GPUArray)) throw typeError('ERR_INVALID_ARG_TYPE', `keep() takes a GPUArray. Received ${describe(a)}`);
  for (const target of a.base ? [a, a.base] : [a]) {
    for (const scope of scopes) {
      const i = scope.indexOf(target);
      if (i >= 0) scope.splice(i, 1);
    }
  }
  return a;
}
