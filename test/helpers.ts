/**
 * Test helpers. GPU suites use `describeGpu`: on a machine without a CUDA GPU they are skipped
 * with one visible line saying why (CI has no GPU; the GPU machine runs everything).
 */
import { spawnSync } from 'child_process';
import * as path from 'path';
import { compiler, isAvailable, memory } from '../lib';
import { native } from '../lib/cuda/native';
import type { CompileOptions } from '../lib';

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

/** PTX for sm_75 and CUBIN for sm_90 of one source. */
export interface BothArchs { ptx: string; cubin: Buffer }

/**
 * Compiles `source` for sm_75 (PTX) and sm_90 (CUBIN, so ptxas runs too) with NVRTC off the main
 * thread; no GPU needed. Codegen suites start every module at collection time (`startAll`), so
 * the compiles run concurrently on libuv's pool while the tests await their own.
 */
export async function compileBoth(source: string, opts: CompileOptions = {}): Promise<BothArchs> {
  const base: CompileOptions = { noExternC: true, options: ['--std=c++17'], ...opts };
  const [p, c] = await Promise.all([
    compiler.compileAsync(source, { ...base, arch: 'sm_75', target: 'ptx' }),
    compiler.compileAsync(source, { ...base, arch: 'sm_90' }),
  ]);
  return { ptx: Buffer.from(p.image).toString('utf8'), cubin: Buffer.from(c.image) };
}

/** Every name is a kernel entry of both images. */
export function expectEntries(r: BothArchs, names: readonly string[]): void {
  for (const name of names) expect(r.ptx).toContain(`.entry ${name}(`);
  for (const name of names) expect(r.cubin.includes(Buffer.from(`${name}\0`))).toBe(true);
}

/** Starts job(k) for every key now; returns the lookup (rejections are kept for the awaiting test). */
export function startAll<K, T>(keys: readonly K[], job: (k: K) => Promise<T>): (k: K) => Promise<T> {
  const jobs = new Map<K, Promise<T>>();
  for (const k of keys) {
    const p = Promise.resolve().then(() => job(k));
    p.catch(() => undefined); // handled by the test that awaits it
    jobs.set(k, p);
  }
  return (k) => jobs.get(k)!;
}

/** The built package, for child processes (`require(process.env.NODECUDA_DIST)`). */
export const DIST = path.resolve(__dirname, '..', 'dist');

/**
 * Runs `script` in a child Node process (with `flags`) and parses the last stdout line that
 * starts with '{' as JSON.
 */
export function runChild(script: string, flags: string[] = []): { status: number | null; out: Record<string, unknown>; stderr: string } {
  const r = spawnSync(process.execPath, [...flags, '-e', script], { encoding: 'utf8', timeout: 120000, env: { ...process.env, NODECUDA_DIST: DIST } });
  const line = r.stdout.trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '{}';
  return { status: r.status, out: JSON.parse(line), stderr: r.stderr };
}

/**
 * Live allocations after freeing every one whose owner is already garbage (gc, then memCollect):
 * a baseline that allocations made after it cannot lower by reaping older garbage. Needs
 * node --expose-gc (npm test).
 */
export function settledLive(): number {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('run Jest with node --expose-gc');
  gc();
  native.memCollect();
  return memory().liveAllocations;
}
