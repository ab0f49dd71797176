/**
 * Which device the calling code works on: the innermost `withDevice` scope, else the thread's
 * device (`useDevice`, default 0). Native calls use a per-thread device (src/context.cc);
 * `syncDevice()` makes it follow the scope. Scopes are AsyncLocalStorage stores, so an async
 * callback of `withDevice` keeps its device across `await`, timers and callbacks while other code
 * interleaved with it keeps its own; since no hook tells us when such code resumes, the switch is
 * lazy: every entry point that allocates, copies, compiles, loads, makes a stream or event, or asks
 * for the current context calls `syncDevice()` first (currentContext() does for all kernel paths).
 */
import { AsyncLocalStorage } from 'async_hooks';
import { native } from './native';

interface Scope {
  device: number;
}

// Created on the first withDevice(): AsyncLocalStorage costs every promise a little (Node 20
// tracks them with promise hooks while one is in use), so programs without scopes pay nothing.
let als: AsyncLocalStorage<Scope> | null = null;
let threadDevice = 0; // outside every scope (useDevice)
let nativeDevice = 0; // the device the native module uses on this thread now
const pinned: Scope[] = []; // synchronous switches (runPinned), innermost last

/** Bumped whenever the native device changes, so caches of "the current context" know. */
export const deviceEpoch = { value: 0 };

function scope(): Scope | undefined {
  if (pinned.length) return pinned[pinned.length - 1];
  return als?.getStore();
}

/** @internal The device the calling code works on. */
export function scopeDevice(): number {
  return scope()?.device ?? threadDevice;
}

/** @internal Makes the native thread device the scope's (cheap when it already is). */
export function syncDevice(): void {
  const want = scope()?.device ?? threadDevice;
  if (want === nativeDevice) return;
  native.useDevice(want);
  nativeDevice = want;
  deviceEpoch.value++;
}

/**
 * @internal useDevice(n): the rest of the innermost scope (or, outside scopes, the thread) uses
 * device `n`. The caller validated `n`.
 */
export function setScopeDevice(n: number): void {
  const s = scope();
  if (s) s.device = n;
  else threadDevice = n;
  syncDevice();
}

/** @internal Runs `fn` (and whatever async work it starts) on device `n`. */
export function runScoped<T>(n: number, fn: () => T): T {
  als ??= new AsyncLocalStorage<Scope>();
  return als.run({ device: n }, fn);
}

/**
 * @internal Runs the synchronous `fn` on device `n`, cheaply (no AsyncLocalStorage): for
 * operations that must run where an array lives (copies to and from the host). Callbacks that
 * `fn` schedules do not inherit the switch.
 */
export function runPinned<T>(n: number, fn: () => T): T {
  pinned.push({ device: n });
  try {
    return fn();
  } finally {
    pinned.pop();
  }
}
