/**
 * Layer 92: the NCCL Communicator's policy (lib/nccl/communicator.ts) with NCCL's answers
 * simulated: the native calls are spied on, so no GPU is needed (libnccl must load: the suite
 * is skipped otherwise). Init and split polling, timeouts and aborts, failures, the option checks
 * of the collectives, the Async forms' waits, disposal and initAll. test/92.nccl runs the real
 * thing on a GPU; test/asan/nccl the collectives' buffers on the CPU driver double.
 */
import { randomBytes } from 'crypto';
import { GPUArray, NcclError, nccl } from '../lib';
import { native } from '../lib/cuda/native';
import { expectCode } from './helpers';

const hasNccl = nccl.isAvailable();

(hasNccl ? describe : describe.skip)('Communicator policy against simulated NCCL states', () => {
  const handle = { fake: true } as unknown as NativeAddon.NcclCommHandle;
  /** A fresh id: ranks sharing an id on one thread change the policy (see the "several ranks" test). */
  const anId = (): Uint8Array => new Uint8Array(randomBytes(128));
  let state: number;
  let releases: boolean[];
  let splits: number[];
  beforeEach(() => {
    state = 7;
    releases = [];
    splits = [];
    jest.spyOn(native, 'ncclCommInitRank').mockReturnValue(handle);
    jest.spyOn(native, 'ncclCommSplitWork').mockImplementation((_h, rank) => { splits.push(rank); return 0; });
    jest.spyOn(native, 'ncclCommState').mockImplementation(() => state);
    jest.spyOn(native, 'ncclCommRelease').mockImplementation((_h, abort) => { releases.push(abort); });
    jest.spyOn(native, 'ncclErrorOf').mockImplementation((_h, status, call) =>
      new NcclError(`${call} failed`, { code: status === 6 ? 'NCCL_REMOTE_ERROR' : 'NCCL_ERROR_UNKNOWN', status, call }));
  });
  afterEach(() => jest.restoreAllMocks());

  test('init that never finishes: ready rejects with NCCL_TIMEOUT after timeoutMs, aborted, event loop free', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 5);
    const start = Date.now();
    const c = new nccl.Communicator(2, anId(), 1, { device: 0, timeoutMs: 300 });
    expect(c.isIdle()).toBe(false);
    await expect(c.ready).rejects.toMatchObject({ name: 'NcclError', code: 'NCCL_TIMEOUT', call: 'ncclCommInitRankConfig' });
    clearInterval(timer);
    expect(Date.now() - start).toBeGreaterThanOrEqual(290);
    expect(ticks).toBeGreaterThan(5);
    expect(releases).toEqual([true]);
    expect(c.usable).toBe(false);
    expectCode(() => c.isIdle(), NcclError, 'NCCL_TIMEOUT');
    c.dispose(); // no-op after the abort
    expect(releases).toEqual([true]);
  });

  test('after the init, ready waits for the split into the blocking communicator (NCCL_TIMEOUT if it never ends)', async () => {
    const c = new nccl.Communicator(3, anId(), 2, { device: 0, timeoutMs: 400 });
    let settled = false;
    c.ready.then(() => (settled = true), () => (settled = true));
    (native.ncclCommSplitWork as jest.Mock).mockImplementation((_h, rank) => { splits.push(rank); state = 7; return 7; });
    await new Promise((r) => setTimeout(r, 30));
    state = 0; // the init is done: the split starts, NCCL's thread works on it
    await new Promise((r) => setTimeout(r, 60));
    expect(splits).toEqual([2]);
    expect(settled).toBe(false);
    expect(c.isIdle()).toBe(false); // a call before ready is refused or waited for, never sent to the parent
    await expect(c.ready).rejects.toMatchObject({ code: 'NCCL_TIMEOUT', call: 'ncclCommSplit' });
    expect(releases).toEqual([true]);
    state = 0;
    const d = new nccl.Communicator(1, anId(), 0, { device: 0, blocking: false });
    await expect(d.ready).resolves.toBe(d);
    expect(splits).toEqual([2]); // blocking: false keeps the non-blocking communicator for its calls
    expect(d.isIdle()).toBe(true);
    expectCode(() => new nccl.Communicator(1, anId(), 0, { blocking: 1 as unknown as boolean }), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('several ranks of one communicator on this thread (initAll): non-blocking unless blocking: true is asked for', async () => {
    state = 0;
    const id = anId();
    const shared = [0, 1].map((r) => new nccl.Communicator(2, id, r, { device: 0 }));
    await Promise.all(shared.map((c) => c.ready));
    expect(splits).toEqual([]); // a blocking rank's first call would wait for a peer this thread calls afterwards
    expect(shared.every((c) => c.isIdle())).toBe(true);
    shared.forEach((c) => c.dispose());
    const id2 = anId();
    const asked = [0, 1].map((r) => new nccl.Communicator(2, id2, r, { device: 0, blocking: true }));
    if (nccl.version().code >= 22700) {
      await Promise.all(asked.map((c) => c.ready));
      expect(splits).toEqual([0, 1]);
    } else { // one group job per thread before 2.27: the ranks' splits would wait for each other
      await expect(asked[0].ready).rejects.toMatchObject({ code: 'NCCL_UNSUPPORTED', call: 'ncclCommSplit' });
    }
    asked.forEach((c) => c.dispose());
    const alone = new nccl.Communicator(2, anId(), 1, { device: 0 }); // one rank here, the other elsewhere
    await alone.ready;
    expect(splits.slice(-1)).toEqual([1]);
    alone.dispose();
  });

  test('a split that fails to start fails the communicator (aborted, ready rejects with the NcclError)', async () => {
    state = 0;
    (native.ncclCommSplitWork as jest.Mock).mockImplementation(() => {
      throw new NcclError('ncclCommSplit failed', { code: 'NCCL_INVALID_USAGE', status: 5, call: 'ncclCommSplit' });
    });
    const c = new nccl.Communicator(2, anId(), 0, { device: 0 });
    await expect(c.ready).rejects.toMatchObject({ code: 'NCCL_INVALID_USAGE', call: 'ncclCommSplit' });
    expect(releases).toEqual([true]);
    expect(c.usable).toBe(false);
    expect(c.error?.code).toBe('NCCL_INVALID_USAGE');
  });

  test('init that finishes: ready resolves with the communicator', async () => {
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    setTimeout(() => (state = 0), 30);
    await expect(c.ready).resolves.toBe(c);
    expect([c.isIdle(), c.error, c.usable]).toEqual([true, null, true]);
    c.dispose();
    c.dispose();
    expect(releases).toEqual([false]);
    expectCode(() => c.isIdle(), TypeError, 'ERR_USE_AFTER_DISPOSE');
  });

  test('collectives check option names first: torch.distributed\'s async_op, group, dst, src, tag are a TypeError', async () => {
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    const x = undefined as never; // never reached: the options are checked first
    const calls: Array<[string, () => unknown, string]> = [
      ['allReduce', () => c.allReduce(x, { async_op: false } as never), 'async_op'], ['reduce', () => c.reduce(x, { dst: 0 } as never), 'dst'],
      ['broadcast', () => c.broadcast(x, { src: 0 } as never), 'src'], ['allGather', () => c.allGather(x, { op: 'sum' } as never), 'op'],
      ['reduceScatter', () => c.reduceScatter(x, { group: null } as never), 'group'], ['send', () => c.send(x, 0, { tag: 1 } as never), 'tag'],
      ['recv', () => c.recv(x, 0, { root: 0 } as never), 'root'],
    ];
    for (const [name, call, key] of calls) {
      expect(expectCode(call, TypeError, 'ERR_INVALID_ARG_VALUE').message).toMatch(new RegExp(`^Communicator\\.${name}\\(\\): unknown option "${key}"`));
    }
    const refused = (name: string, key: string) => expect.objectContaining({ name: 'TypeError', code: 'ERR_INVALID_ARG_VALUE',
      message: expect.stringContaining(`Communicator.${name}(): unknown option "${key}"`) });
    await expect(c.allReduceAsync(x, { async_op: true } as never)).rejects.toEqual(refused('allReduceAsync', 'async_op'));
    await expect(c.reduceScatterAsync(x, { timeout: 5 } as never)).rejects.toEqual(refused('reduceScatterAsync', 'timeout'));
    await expect(c.recvAsync(x, 0, { op: 'sum' } as never)).rejects.toEqual(refused('recvAsync', 'op'));
    await expect(c.synchronizeAsync({ timeout: 5 } as never)).rejects.toEqual(refused('synchronizeAsync', 'timeout'));
    await expect(c.disposeAsync({ stream: null } as never)).rejects.toEqual(refused('disposeAsync', 'stream'));
    expect(c.usable).toBe(true); // nothing reached NCCL
    c.dispose();
    expect(releases).toEqual([false]);
  });

  test('timeoutMs must be a positive number in every form, the synchronous ones included (RangeError before the arrays are read)', async () => {
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    const x = undefined as never; // never reached: the options are checked first
    for (const t of [0, -1, NaN, '100', null, 5n]) {
      const o = { timeoutMs: t } as never;
      for (const call of [() => c.allReduce(x, o), () => c.reduce(x, o), () => c.broadcast(x, o), () => c.allGather(x, o),
        () => c.reduceScatter(x, o), () => c.send(x, 0, o), () => c.recv(x, 0, o)]) {
        expect(expectCode(call, RangeError, 'ERR_OUT_OF_RANGE').message).toMatch(/^The "timeoutMs" option must be a positive number of milliseconds/);
      }
      await expect(c.allGatherAsync(x, o)).rejects.toMatchObject({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
      await expect(c.synchronizeAsync(o)).rejects.toMatchObject({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE' });
    }
    expect(c.usable).toBe(true);
    c.dispose();
  });

  test('Async forms hand every option of the collective to it, and wait for the stream with stream and timeoutMs only', async () => {
    const done = jest.spyOn(native, 'ncclStreamDoneAsync').mockResolvedValue(undefined);
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    const x = { an: 'array' } as never;
    const seen: unknown[] = [];
    for (const name of ['allReduce', 'reduce', 'reduceScatter'] as const) {
      jest.spyOn(c, name).mockImplementation((...args: unknown[]) => (seen.push(args[1]), args[0] as GPUArray));
    }
    const opts = { op: 'avg' as const, out: undefined, stream: null, timeoutMs: 5000 };
    expect(await c.allReduceAsync(x, opts)).toBe(x);
    expect(await c.reduceAsync(x, { ...opts, root: 0 })).toBe(x);
    expect(await c.reduceScatterAsync(x, { op: 'max' })).toBe(x);
    expect(seen).toEqual([opts, { ...opts, root: 0 }, { op: 'max' }]);
    expect(done).toHaveBeenCalledTimes(3);
    c.dispose();
  });

  test('a failure reported by ncclCommGetAsyncError: NcclError with its code, aborted, thrown by every later call', async () => {
    const c = new nccl.Communicator(2, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    state = 6; // ncclRemoteError: a peer failed
    expect(c.error?.code).toBe('NCCL_REMOTE_ERROR');
    expect(releases).toEqual([true]);
    expectCode(() => c.isIdle(), NcclError, 'NCCL_REMOTE_ERROR');
    await expect(c.synchronizeAsync()).rejects.toMatchObject({ code: 'NCCL_REMOTE_ERROR' });
  });

  test('synchronizeAsync({ timeoutMs }): a stream that never finishes is aborted with NCCL_TIMEOUT', async () => {
    jest.spyOn(native, 'ncclStreamDoneAsync').mockReturnValue(new Promise<void>(() => {}));
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    await expect(c.synchronizeAsync({ timeoutMs: 100 })).rejects.toMatchObject({ code: 'NCCL_TIMEOUT' });
    expect(releases).toEqual([true]);
  });

  test('disposeAsync: waits for the stream, finalizes, polls until idle, then destroys', async () => {
    const done = jest.spyOn(native, 'ncclStreamDoneAsync').mockResolvedValue(undefined);
    const finalize = jest.spyOn(native, 'ncclCommFinalize').mockImplementation(() => {
      state = 7;
      setTimeout(() => (state = 0), 20);
      return 7;
    });
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    await c.disposeAsync();
    expect(done).toHaveBeenCalledTimes(1);
    expect(finalize).toHaveBeenCalledTimes(1);
    expect(releases).toEqual([false]);
    expect(c.usable).toBe(false);
  });

  test('dispose() of a communicator still initialising aborts it (destroy would wait for the peers)', async () => {
    const c = new nccl.Communicator(2, anId(), 0, { device: 0 });
    c.dispose();
    expect(releases).toEqual([true]);
    await expect(c.ready).rejects.toMatchObject({ code: 'ERR_USE_AFTER_DISPOSE' });
  });

  test('disposeAsync() of a communicator that fails meanwhile resolves: the failure already released it', async () => {
    jest.spyOn(native, 'ncclStreamDoneAsync').mockResolvedValue(undefined);
    jest.spyOn(native, 'ncclCommFinalize').mockImplementation(() => { state = 6; return 7; });
    const c = new nccl.Communicator(1, anId(), 0, { device: 0 });
    state = 0;
    await c.ready;
    await expect(c.disposeAsync()).resolves.toBeUndefined();
    expect(releases).toEqual([true]);
    expect(c.error?.code).toBe('NCCL_REMOTE_ERROR');
  });

  test('initAll: one id, every rank created inside one NCCL group, ranks in device order', () => {
    const calls: string[] = [];
    jest.spyOn(native, 'ncclGroup').mockImplementation((start) => { calls.push(start ? 'start' : 'end'); return 0; });
    (native.ncclCommInitRank as jest.Mock).mockImplementation((n: number, id: Uint8Array, rank: number, device: number) => {
      calls.push(`init ${n} ${rank} ${device} ${id.byteLength}`);
      return handle;
    });
    const comms = nccl.initAll([3, 1]);
    expect(calls).toEqual(['start', 'init 2 0 3 128', 'init 2 1 1 128', 'end']);
    expect(comms.map((c) => [c.rank, c.device, c.nranks])).toEqual([[0, 3, 2], [1, 1, 2]]);
    for (const c of comms) c.ready.catch(() => {});
  });
});
