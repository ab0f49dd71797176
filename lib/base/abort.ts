/**
 * `{ signal }` on Promise APIs that can take long (compileAsync, async copies, synchronizeAsync,
 * GPUArray getAsync/setAsync, gpuarray.toGpuAsync): an aborted signal rejects the Promise at once
 * with an AbortError, as Node's own APIs do. The work already handed to NVRTC or queued on the
 * GPU cannot be taken back: it finishes in the background, and its result is dropped (what it
 * writes, it still writes).
 */
import { describe, typeError } from './errors';

/**
 * An AbortSignal, as nodecuda's declarations spell it: the members nodecuda uses, so that its
 * types compile without the DOM lib or @types/node (a consumer's `types: []`). Pass a real
 * AbortSignal (`AbortController#signal`, `AbortSignal.timeout(ms)`); anything else is a TypeError.
 */
export interface AbortSignalLike {
  /** Whether the signal has been aborted. */
  readonly aborted: boolean;
  /** Why it was aborted (the AbortError's `cause`); undefined while not aborted. */
  readonly reason: unknown;
  /** Adds a listener for the 'abort' event (`once`: removed after it runs). */
  addEventListener(type: 'abort', listener: () => void, options?: { once?: boolean }): void;
  /** Removes a listener added with addEventListener. */
  removeEventListener(type: 'abort', listener: () => void): void;
}

/** Options of a Promise API that can be aborted. */
export interface AbortOptions {
  /** Rejects the Promise with an AbortError when aborted (the work itself still finishes). */
  signal?: AbortSignalLike;
}

/** @internal The option names of AbortOptions, for the option checks of calls that take only them. */
export const ABORT_KEYS: readonly string[] = ['signal'];

/** The rejection of an aborted call: name 'AbortError', code 'ABORT_ERR', cause the signal's reason. */
export function abortError(signal: AbortSignalLike): Error {
  const e = new Error('The operation was aborted', { cause: signal.reason }) as Error & { code: string };
  e.name = 'AbortError';
  e.code = 'ABORT_ERR';
  return e;
}

/** Checks `signal` (undefined is fine); TypeError ERR_INVALID_ARG_TYPE otherwise. */
export function checkSignal(signal: unknown): AbortSignalLike | undefined {
  if (signal === undefined) return undefined;
  if (!(signal instanceof AbortSignal)) {
    throw typeError('ERR_INVALID_ARG_TYPE', `The "signal" option must be an AbortSignal. Received ${describe(signal)}`);
  }
  return signal;
}

/**
 * Checks `signal` and throws its AbortError when it is aborted already: for calls that queue
 * work of their own (a contiguous copy, an allocation) before the one the Promise waits for, so
 * an aborted signal queues nothing. Argument errors come first, as without a signal.
 */
export function throwIfAborted(signal: unknown): AbortSignalLike | undefined {
  const s = checkSignal(signal);
  if (s?.aborted) throw abortError(s);
  return s;
}

/**
 * Runs `work` unless `signal` is already aborted, and settles with it unless the signal aborts
 * first. Argument errors of `work` still reject (or throw) as without a signal.
 */
export function abortable<T>(work: () => Promise<T>, signal: unknown): Promise<T> {
  const s = checkSignal(signal);
  if (!s) return work();
  if (s.aborted) return Promise.reject(abortError(s));
  const p = work();
  return new Promise<T>((resolve, reject) => {
    const onAbort = (): void => reject(abortError(s));
    s.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => { s.removeEventListener('abort', onAbort); resolve(v); },
      (e) => { s.removeEventListener('abort', onAbort); reject(e); },
    );
  });
}
