/**
 * Runs scripts against the CPU driver double (test/fakecuda) and the sanitized addon, each in a
 * child Node process, so an AddressSanitizer/UBSan abort is a test failure that shows the report
 * (npm run test:asan builds build-asan/ first).
 */
import { spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { DIST } from '../helpers';

const ROOT = path.resolve(__dirname, '..', '..');
const BUILD = path.join(ROOT, 'build-asan', 'Release');
export const FAKE_LIB = path.join(BUILD, 'libfakecuda.so');
export const ASAN_ADDON = path.join(BUILD, 'nodecuda.node');

/** The gcc AddressSanitizer runtime, preloaded into the (uninstrumented) node binary. */
function asanRuntime(): string {
  const r = spawnSync(process.env.CC || 'gcc', ['-print-file-name=libasan.so'], { encoding: 'utf8' });
  return r.status === 0 ? fs.realpathSync(r.stdout.trim()) : '';
}

export function checkBuilt(): void {
  for (const f of [FAKE_LIB, ASAN_ADDON, path.join(DIST, 'index.js')])
    if (!fs.existsSync(f)) throw new Error(`${f} is missing: run npm run test:asan (it builds build-asan/ and dist/)`);
}

export interface FakeRun {
  status: number | null;
  signal: NodeJS.Signals | null;
  out: Record<string, unknown>;
  stdout: string;
  stderr: string;
}

/**
 * Runs `script` (CommonJS; top-level await is not available: wrap in an async function) in a
 * child node with the fake driver and the sanitized addon; the last stdout line starting with
 * '{' is parsed as JSON. `env` adds FAKECUDA_* knobs.
 */
export function runFake(script: string, env: Record<string, string> = {}, timeout = 170000): FakeRun {
  const r = spawnSync(process.execPath, ['--expose-gc', '-e', script], {
    encoding: 'utf8',
    // Under jest.asan.config.js's 180 s a test. SIGKILL: a child under the ASan runtime that got
    // SIGTERM inside NVRTC was seen spinning in its signal handler, and spawnSync waits for it.
    timeout,
    killSignal: 'SIGKILL',
    env: {
      ...process.env,
      NODECUDA_DIST: DIST,
      NODECUDA_BINARY: ASAN_ADDON,
      NODECUDA_LIBCUDA: FAKE_LIB,
      LD_PRELOAD: asanRuntime(),
      ASAN_OPTIONS: 'detect_leaks=0:abort_on_error=1:halt_on_error=1',
      UBSAN_OPTIONS: 'print_stacktrace=1:halt_on_error=1',
      ...env,
    },
  });
  const line = (r.stdout ?? '').trim().split('\n').filter((l) => l.startsWith('{')).pop() ?? '{}';
  let out: Record<string, unknown>;
  try {
    out = JSON.parse(line);
  } catch {
    out = {};
  }
  return { status: r.status, signal: r.signal, out, stdout: r.stdout ?? '', stderr: r.stderr ?? '' };
}

/** The sanitizer or fakecuda report in `stderr`, or '' when there is none. */
export function report(stderr: string): string {
  const i = stderr.search(/ERROR: AddressSanitizer|runtime error:|fakecuda: |terminate called|FATAL ERROR/);
  return i < 0 ? '' : stderr.slice(i, i + 6000);
}

/** Fails with the report unless the child exited 0 without a sanitizer or fakecuda report. */
export function expectClean(r: FakeRun): void {
  const rep = report(r.stderr);
  if (r.status !== 0 || rep) {
    throw new Error(`child exited with status ${r.status} signal ${r.signal}\n` +
      `${rep || r.stderr.slice(-4000)}\nstdout:\n${r.stdout.slice(-2000)}`);
  }
}
