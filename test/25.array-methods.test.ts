/**
 * Layer 25: GPUArray's operator, copy, reduction and scan methods are declared in the class body
 * and call the implementations registered in lib/array/methods.ts. No GPU: the checks stop at
 * argument validation.
 */
import { GPUArray } from '../lib';
import { impl } from '../lib/array/methods';

const METHODS = [
  'add', 'sub', 'mul', 'div', 'pow', 'mod', 'floorDiv', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'and', 'or', 'xor',
  'shl', 'shr', 'maximum', 'minimum', 'logicalAnd', 'logicalOr', 'logicalXor', 'neg', 'abs', 'not', 'logicalNot',
  'rsub', 'rdiv', 'rpow', 'rmod', 'rfloorDiv', 'fill', 'astype', 'copy', 'sum', 'prod', 'min', 'max', 'mean',
  'var', 'std', 'any', 'all', 'argmin', 'argmax', 'dot', 'cumsum', 'cumprod',
];

/** The error `f` throws (or undefined). */
function thrown(f: () => unknown): (Error & { code?: string }) | undefined {
  try {
    f();
  } catch (e) {
    return e as Error & { code?: string };
  }
  return undefined;
}

describe('GPUArray methods', () => {
  test('are class methods (own, non-enumerable members of the prototype)', () => {
    for (const name of METHODS) {
      const d = Object.getOwnPropertyDescriptor(GPUArray.prototype, name);
      expect(typeof d?.value).toBe('function');
      expect(d?.enumerable).toBe(false);
    }
  });

  test('every implementation is registered once the package is loaded', () => {
    for (const [name, f] of Object.entries(impl)) {
      const e = thrown(() => (f as (...a: unknown[]) => unknown)(undefined, undefined));
      expect([name, e?.code]).not.toEqual([name, 'ERR_INVALID_STATE']);
    }
    // An unknown operator name reaches the ufunc table's own check.
    expect(thrown(() => impl.apply('noSuchOp', []))?.code).toBe('ERR_INVALID_ARG_VALUE');
  });
});
