/**
 * cuFFT plans: an LRU cache keyed by geometry (type, sizes, embeds, strides, distances, batch)
 * and context (id and reset generation). A plan is bound to the caller's stream and gets a work
 * area from the memory pool on every execution (freed stream-ordered right after), so cached
 * plans hold no work memory and one plan serves every stream.
 */
import { checkSize, rangeError } from '../base/errors';
import { Stream, currentContext, streamHandle } from '../cuda/driver';
import { DeviceAllocation } from '../cuda/memory';
import { cufftDestroy, cufftExec, cufftPlan } from '../cuda/cufft';

/** What a cuFFT plan computes and over which layout (cufftPlanMany's advanced layout). */
export interface PlanGeometry {
  type: number;
  n: number[];
  inembed: number[];
  istride: number;
  idist: number;
  onembed: number[];
  ostride: number;
  odist: number;
  batch: number;
}

interface CachedPlan { handle: NativeAddon.CufftPlanHandle; work: number }

const cache = new Map<string, CachedPlan>(); // insertion order = least recently used first
let limit = 16;

// The context's generation too: after device.reset() its plans are gone (native skips destroying them).
function keyOf(g: PlanGeometry, context: { id: number; generation: number }): string {
  return `${context.id}.${context.generation}|${g.type}|${g.n}|${g.inembed}|${g.istride}|${g.idist}|${g.onembed}|${g.ostride}|${g.odist}|${g.batch}`;
}

function evict(): void {
  while (cache.size > limit) {
    const [key, plan] = cache.entries().next().value as [string, CachedPlan];
    cache.delete(key);
    cufftDestroy(plan.handle);
  }
}

/** The cached plan for `g` in the current context, made on a miss. @internal */
export function planFor(g: PlanGeometry): CachedPlan {
  const key = keyOf(g, currentContext());
  let plan = cache.get(key);
  if (plan) {
    cache.delete(key); // most recently used goes last
  } else {
    const [handle, work] = cufftPlan(g.type, g.n, g.inembed, g.istride, g.idist, g.onembed, g.ostride, g.odist, g.batch);
    plan = { handle, work };
  }
  cache.set(key, plan);
  evict();
  return plan;
}

/**
 * Executes the plan for `g` from `input` to `output` (equal addresses: in place) on `stream`.
 * The caller records the arrays' use on the stream. @internal
 */
export function execute(g: PlanGeometry, input: bigint, output: bigint, inverse: boolean, stream: Stream | null | undefined): void {
  const plan = planFor(g);
  const s = streamHandle(stream);
  const work = plan.work > 0 ? new DeviceAllocation(plan.work, stream ?? null) : null;
  try {
    cufftExec(plan.handle, s, input, output, work ? work.ptr : 0n, inverse);
  } finally {
    work?.free(); // stream-ordered: after the transform on its stream
  }
}

/**
 * Destroys every cached cuFFT plan (they are made again on demand).
 * @example
 * fft.clearPlanCache();
 */
export function clearPlanCache(): void {
  const plans = [...cache.values()];
  cache.clear();
  for (const p of plans) cufftDestroy(p.handle);
}

/**
 * The plan cache's size and limit.
 * @example
 * fft.planCacheInfo(); // { size: 3, limit: 16 }
 */
export function planCacheInfo(): {
  /** Plans cached now. */
  size: number;
  /** The most plans the cache keeps (setPlanCacheLimit; default 16). */
  limit: number;
} {
  return { size: cache.size, limit };
}

/**
 * Sets how many plans the cache keeps, at least 1 (least recently used go first; default 16).
 * @example
 * fft.setPlanCacheLimit(64);
 */
export function setPlanCacheLimit(n: number): void {
  if (typeof n === 'number' && n < 1) throw rangeError('ERR_OUT_OF_RANGE', `The plan cache limit must be at least 1. Received ${n}`);
  checkSize(n, 'limit', 1 << 20);
  limit = n;
  evict();
}
