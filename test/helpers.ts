/**
 * Test helpers. GPU suites use `describeGpu`: on a machine without a CUDA GPU they are skipped
 * with one visible line saying why (CI has no GPU; the GPU machine runs everything).
 */
import { isAvailable } from '../lib';

export const hasGpu = isAvailable();

let announced = false;

/** `describe` for suites that need a GPU; skipped, with one line saying why, without one. */
export function describeGpu(name: string, fn: () => void): void {
  if (hasGpu) {
    describe(name, fn);
    return;
  }
  if (!announced) {
    announced = true;
    // One visible line per test file: the reason the GPU suites did not run.
    process.stdout.write(`[nodecuda] no CUDA driver/GPU: skipping GPU suites (${name} …)\n`);
  }
  describe.skip(`${name} [skipped: no CUDA GPU]`, fn);
}

/** Runs `gc` (Jest runs with --expose-gc) and lets finalizers run. */
export async function collect(): Promise<void> {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run Jest with node --expose-gc');
  for (let i = 0; i < 3; i++) {
    gc();
    await new Promise((r) => setImmediate(r));
  }
}

/** Expects `fn` to throw an error of class `cls` whose `code` is `code`. */
export function expectCode(fn: () => unknown, cls: new (...args: never[]) => Error, code: string): Error {
  let caught: unknown;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  expect(caught).toBeInstanceOf(cls);
  expect((caught as { code?: string }).code).toBe(code);
  return caught as Error;
}
