/**
 * Layer 92: NCCL (lib/nccl/, src/nccl.cc). Without a GPU: loading libnccl through dlopen, the
 * NODECUDA_NCCL override and NCCL_NOT_FOUND, version(), unique ids (ncclGetUniqueId needs no
 * GPU), argument errors (the policy with NCCL simulated: test/92.nccl-policy). With one GPU:
 * 1-rank communicators — every collective × dtype × op against a CPU reference, in and out of
 * place, streams, Promises, errors, disposal, a worker_thread rank, a child process joining by
 * unique id, and the timeout of a missing peer.
 * The child-process and worker cases load the built package (dist/).
 */
import { spawnSync, spawn } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { MessageChannel, Worker } from 'worker_threads';
import { GPUArray, NcclError, driver, gpuarray, nccl } from '../lib';
import type { DTypeName, NcclCommunicator, NcclReduceOp } from '../lib';
import { native } from '../lib/cuda/native';
import { wheelLibraryPaths } from '../lib/nccl/library';
import { describeGpu, expectCode } from './helpers';
import { NCCL_DTYPES, opsFor, poisoned, reference } from './nccl-reference';
import { download, expectSame, pool, upload } from './reference';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const hasNccl = nccl.isAvailable();

/** Runs `body` in a fresh Node process (NCCL is opened once per process) with `env` added. */
function child(body: string, env: Record<string, string> = {}): { status: number | null; out: string; err: string } {
  const script = `const cuda = require(${JSON.stringify(DIST)}); const { nccl, NcclError } = cuda;\n${body}`;
  const r = spawnSync(process.execPath, ['-e', script], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  return { status: r.status, out: r.stdout, err: r.stderr };
}

beforeAll(() => {
  if (!fs.existsSync(path.join(DIST, 'index.js'))) {
    throw new Error('dist/index.js is missing: the child-process tests load the built package. Run `npm run build:ts`.');
  }
});

describe('nccl without a GPU', () => {
  test('the namespace and NcclError are exported', () => {
    expect(Object.keys(nccl).sort()).toEqual(['Communicator', 'getUniqueId', 'group', 'initAll', 'initAllAsync', 'isAvailable', 'version']);
    const e = new NcclError('m', { code: 'NCCL_REMOTE_ERROR', status: 6, call: 'ncclAllReduce', lastError: 'peer gone' });
    expect(e).toBeInstanceOf(Error);
    expect([e.name, e.code, e.status, e.call, e.lastError]).toEqual(['NcclError', 'NCCL_REMOTE_ERROR', 6, 'ncclAllReduce', 'peer gone']);
  });

  test('NODECUDA_NCCL=/nonexistent: NCCL_NOT_FOUND saying what to install, for every entry point', () => {
    const r = child(`
      const out = { available: nccl.isAvailable() };
      for (const [name, f] of [['version', () => nccl.version()], ['getUniqueId', () => nccl.getUniqueId()],
          ['Communicator', () => new nccl.Communicator(1, new Uint8Array(128), 0)],
          ['group', () => nccl.group(() => 1)]]) {
        try { f(); out[name] = 'no error'; } catch (e) { out[name] = [e instanceof NcclError, e.code, e.call, e.message]; }
      }
      console.log(JSON.stringify(out));`, { NODECUDA_NCCL: '/nonexistent' });
    expect(r.err).toBe('');
    const out = JSON.parse(r.out);
    expect(out.available).toBe(false);
    for (const name of ['version', 'getUniqueId', 'Communicator', 'group']) {
      const [isNccl, code, call, message] = out[name];
      expect([isNccl, code, call]).toEqual([true, 'NCCL_NOT_FOUND', 'dlopen']);
      expect(message).toMatch(/libnccl\.so\.2\) was not found\. Install NCCL/);
      expect(message).toMatch(/NODECUDA_NCCL/);
      expect(message).toContain('/nonexistent');
    }
  });

  test('the Python wheel layout (site-packages/nvidia/nccl/lib) is searched under VIRTUAL_ENV', () => {
    const venv = fs.mkdtempSync(path.join(os.tmpdir(), 'nccl-venv-'));
    try {
      const lib = path.join(venv, 'lib', 'python3.12', 'site-packages', 'nvidia', 'nccl', 'lib');
      fs.mkdirSync(lib, { recursive: true });
      fs.writeFileSync(path.join(lib, 'libnccl.so.2'), '');
      const found = wheelLibraryPaths({ VIRTUAL_ENV: venv, PYTHONPATH: '/somewhere' });
      expect(found[0]).toBe(path.join('/somewhere', 'nvidia', 'nccl', 'lib', 'libnccl.so.2'));
      expect(found[1]).toBe(path.join(lib, 'libnccl.so.2'));
    } finally {
      fs.rmSync(venv, { recursive: true, force: true });
    }
  });

  test('a library without the NCCL symbols is skipped with a note (NODECUDA_NCCL at libc)', () => {
    const r = child(`try { nccl.version(); } catch (e) { console.log(JSON.stringify([e.code, e.message])); }`,
      { NODECUDA_NCCL: 'libc.so.6' });
    const [code, message] = JSON.parse(r.out);
    expect(code).toBe('NCCL_NOT_FOUND');
    expect(message).toContain('libc.so.6 (missing symbols)');
  });

  test('group and initAll check their arguments', () => {
    expectCode(() => nccl.group(1 as unknown as () => void), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => nccl.initAll([]), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => nccl.initAll('0' as unknown as number[]), TypeError, 'ERR_INVALID_ARG_TYPE');
  });

  test('Communicator checks its arguments before touching NCCL or CUDA', () => {
    const id = new Uint8Array(128);
    expectCode(() => new nccl.Communicator(0, id, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new nccl.Communicator(1.5, id, 0), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new nccl.Communicator(2, id, 2), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new nccl.Communicator(2, id, -1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new nccl.Communicator(1, new Uint8Array(127), 0), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new nccl.Communicator(1, Array.from(id) as unknown as Uint8Array, 0), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => new nccl.Communicator(1, id, 0, { timeoutMs: 0 }), RangeError, 'ERR_OUT_OF_RANGE');
    if (hasNccl) expectCode(() => new nccl.Communicator(1, id, 0, { device: -1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => new nccl.Communicator(1, id, 0, null as unknown as object), TypeError, 'ERR_INVALID_ARG_TYPE');
    // torch.distributed's `timeout` (a timedelta there; timeoutMs here) is refused, not ignored.
    const e = expectCode(() => new nccl.Communicator(1, id, 0, { timeout: 1000 } as never), TypeError, 'ERR_INVALID_ARG_VALUE');
    expect(e.message).toMatch(/^nccl\.Communicator: unknown option "timeout" \(known: /);
    expect(expectCode(() => nccl.initAll([0], { device: 1 } as never), TypeError, 'ERR_INVALID_ARG_VALUE').message)
      .toBe('nccl.initAll: unknown option "device" (known: timeoutMs, blocking)');
  });
});

(hasNccl ? describe : describe.skip)('nccl where libnccl loads (no GPU needed)', () => {
  test('version() reads ncclGetVersion', () => {
    const v = nccl.version();
    expect(v.major).toBeGreaterThanOrEqual(2);
    expect(v.code).toBe(v.major * 10000 + v.minor * 100 + v.patch);
    expect(fs.existsSync(v.path) || !v.path.includes('/')).toBe(true);
  });

  test('getUniqueId(): 128 fresh bytes that survive structuredClone and postMessage', async () => {
    const a = nccl.getUniqueId();
    const b = nccl.getUniqueId();
    expect(a).toBeInstanceOf(Uint8Array);
    expect(a.byteLength).toBe(128);
    expect(a.some((x) => x !== 0)).toBe(true);
    expect(Buffer.from(a).equals(Buffer.from(b))).toBe(false);
    expect(Buffer.from(structuredClone(a)).equals(Buffer.from(a))).toBe(true);
    const { port1, port2 } = new MessageChannel();
    const got = new Promise<Uint8Array>((resolve) => port2.once('message', resolve));
    port1.postMessage(a);
    const received = await got;
    port1.close();
    expect(Buffer.from(received).equals(Buffer.from(a))).toBe(true);
  });
});

// ---- one GPU ------------------------------------------------------------------------------------

describeGpu('nccl on one GPU', () => {
  let comm: NcclCommunicator;
  beforeAll(async () => {
    comm = await new nccl.Communicator(1, nccl.getUniqueId(), 0, { device: 0, timeoutMs: 30_000 }).ready;
  });
  afterAll(() => comm?.dispose());

  test('the communicator knows its rank, size and device', () => {
    expect([comm.nranks, comm.rank, comm.device, comm.usable, comm.error]).toEqual([1, 0, 0, true, null]);
  });

  describe.each(NCCL_DTYPES)('%s', (d) => {
    const vals = pool(d);
    test.each(opsFor(d))('allReduce %s: in place and into out', (op) => {
      const want = reference(d, op, [vals]);
      const x = upload(d, vals);
      expect(comm.allReduce(x, { op })).toBe(x);
      expectSame(download(x), want, 0, d, `allReduce ${op} in place`);
      const src = upload(d, vals);
      const out = poisoned(d, vals.length);
      expect(comm.allReduce(src, { op, out })).toBe(out);
      expectSame(download(out), want, 0, d, `allReduce ${op} out of place`);
      expectSame(download(src), vals, 0, d, 'the input is unchanged');
    });

    test.each(opsFor(d))('reduce %s to root 0', (op) => {
      const out = poisoned(d, vals.length);
      comm.reduce(upload(d, vals), { op, root: 0, out });
      expectSame(download(out), reference(d, op, [vals]), 0, d, `reduce ${op}`);
      const x = upload(d, vals);
      comm.reduce(x, { op });
      expectSame(download(x), reference(d, op, [vals]), 0, d, `reduce ${op} in place`);
    });

    test.each(opsFor(d))('reduceScatter %s (one block per rank)', (op) => {
      const r = comm.reduceScatter(upload(d, vals), { op });
      expect(r.shape).toEqual([vals.length]);
      expectSame(download(r), reference(d, op, [vals]), 0, d, `reduceScatter ${op}`);
      const out = poisoned(d, vals.length);
      expect(comm.reduceScatter(upload(d, vals), { op, out })).toBe(out);
      expectSame(download(out), reference(d, op, [vals]), 0, d, `reduceScatter ${op} into out`);
    });

    test('broadcast, allGather, send/recv in a group', () => {
      const out = poisoned(d, vals.length);
      comm.broadcast(upload(d, vals), { root: 0, out });
      expectSame(download(out), vals, 0, d, 'broadcast');
      const g = comm.allGather(upload(d, vals, [vals.length]));
      expect(g.shape).toEqual([1, vals.length]);
      expectSame(download(g), vals, 0, d, 'allGather');
      const recv = poisoned(d, vals.length);
      nccl.group(() => { comm.send(upload(d, vals), 0); comm.recv(recv, 0); });
      expectSame(download(recv), vals, 0, d, 'send/recv to self');
    });
  });

  test('unsupported dtypes and ops are typed errors', () => {
    for (const d of ['bool', 'int16', 'uint16'] as DTypeName[]) {
      expectCode(() => comm.allReduce(gpuarray.zeros([4], d)), TypeError, 'NCCL_UNSUPPORTED_DTYPE');
    }
    for (const op of ['prod', 'max', 'min'] as NcclReduceOp[]) {
      expectCode(() => comm.allReduce(gpuarray.zeros([4], 'complex64'), { op }), TypeError, 'NCCL_UNSUPPORTED_DTYPE');
    }
    expectCode(() => comm.allReduce(gpuarray.zeros([4], 'float32'), { op: 'mean' as NcclReduceOp }), TypeError, 'ERR_INVALID_ARG_VALUE');
  });

  test('argument errors: sizes, dtypes, ranks, non-contiguous and disposed arrays', () => {
    const x = gpuarray.zeros([8], 'float32');
    expectCode(() => comm.allReduce(x, { out: gpuarray.zeros([7], 'float32') }), RangeError, 'ERR_NCCL_SIZE_MISMATCH');
    expectCode(() => comm.allReduce(x, { out: gpuarray.zeros([8], 'int32') }), RangeError, 'ERR_NCCL_SIZE_MISMATCH');
    expectCode(() => comm.allGather(x, { out: gpuarray.zeros([9], 'float32') }), RangeError, 'ERR_NCCL_SIZE_MISMATCH');
    expectCode(() => comm.reduce(x, { root: 1 }), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => comm.send(x, 1), RangeError, 'ERR_OUT_OF_RANGE');
    expectCode(() => comm.allReduce(new Float32Array(8) as unknown as GPUArray), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => comm.allReduce(gpuarray.zeros([4, 4], 'float32').transpose()), TypeError, 'ERR_NCCL_NONCONTIGUOUS');
    const gone = gpuarray.zeros([8], 'float32');
    gone.dispose();
    expectCode(() => comm.allReduce(gone), TypeError, 'ERR_USE_AFTER_DISPOSE');
    expectCode(() => comm.allReduce(x, { stream: {} as InstanceType<typeof driver.Stream> }), TypeError, 'ERR_INVALID_ARG_TYPE');
    expectCode(() => nccl.group(() => Promise.resolve()), TypeError, 'ERR_INVALID_RETURN_VALUE');
    // An out that partly overlaps x (NCCL reads and writes them in no set order); in-place forms pass.
    const m = gpuarray.arange(0, 17, 1, 'float32');
    expectCode(() => comm.allReduce(m.index('0:8'), { out: m.index('1:9') }), RangeError, 'ERR_NCCL_OVERLAP');
    expectCode(() => comm.allGather(m.index('1:9'), { out: m.index('0:8') }), RangeError, 'ERR_NCCL_OVERLAP');
    expectCode(() => comm.reduceScatter(m.index('0:8'), { out: m.index('1:9') }), RangeError, 'ERR_NCCL_OVERLAP');
    expect(Array.from(m.get() as Float32Array)).toEqual(Array.from({ length: 17 }, (_, i) => i)); // untouched
    const block = m.index('0:8');
    expect(comm.allGather(block, { out: block.reshape(1, 8) }).shape).toEqual([1, 8]); // x is rank 0's block of out
    expect(comm.allReduce(block, { out: block.reshape(2, 4) }).shape).toEqual([2, 4]); // the same address
    expect(Array.from(m.get() as Float32Array)).toEqual(Array.from({ length: 17 }, (_, i) => i)); // one rank: sums of one
  });

  test('{ stream }: NCCL runs after the library kernels queued on the same stream', async () => {
    const s = new driver.Stream();
    const n = 1 << 20;
    const x = gpuarray.arange(0, n, 1, 'float32', { stream: s });
    for (let i = 0; i < 20; i++) x.add(1, { out: x, stream: s }); // queued launches, drained before NCCL
    const out = gpuarray.zeros([n], 'float32', { stream: s });
    comm.allReduce(x, { out, stream: s });
    await comm.synchronizeAsync({ stream: s });
    const got = out.get() as Float32Array;
    expect(got[0]).toBe(20);
    expect(got[n - 1]).toBe(n - 1 + 20);
    s.dispose();
  });

  test('Async forms resolve with the result and keep the event loop turning', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 0);
    try {
      const x = upload('float64', [1, 2, 3]);
      expect(await comm.allReduceAsync(x, { op: 'max' })).toBe(x);
      expectSame(download(x), [1, 2, 3]);
      const g = await comm.allGatherAsync(upload('int32', [4, 5]));
      expectSame(download(g), [4, 5], 0, 'int32');
      const r = await comm.reduceScatterAsync(upload('float32', [1.5, 2.5]), { op: 'avg' });
      expectSame(download(r), [1.5, 2.5], 0, 'float32');
      const big = gpuarray.ones([1 << 24], 'float32');
      await comm.allReduceAsync(big, { timeoutMs: 30_000 });
      expect(ticks).toBeGreaterThan(0);
    } finally {
      clearInterval(timer);
    }
  });

  // NCCL answers ncclInProgress while its thread still launches the work (connection setup on
  // first use of a peer, a group's end): the synchronous forms must wait for the launch, or a
  // download's stream sync misses the work (seen on an H100: send/recv to self left recv as it was).
  test('a call or group end answered with ncclInProgress is waited for until launched; Async forms do not wait', async () => {
    const real = { coll: native.ncclCollective.bind(native), group: native.ncclGroup.bind(native), wait: native.ncclCommWait.bind(native) };
    const coll = jest.spyOn(native, 'ncclCollective').mockImplementation((...a) => { real.coll(...a); return 7; });
    const group = jest.spyOn(native, 'ncclGroup').mockImplementation((start) => { const r = real.group(start); return start ? r : 7; });
    const wait = jest.spyOn(native, 'ncclCommWait').mockImplementation((h, ms) => real.wait(h, ms));
    try {
      const x = upload('float32', [1, 2]);
      comm.allReduce(x);
      expect(wait).toHaveBeenCalledTimes(1);
      expectSame(download(x), [1, 2], 0, 'float32');
      const recv = poisoned('int32', 3);
      nccl.group(() => { comm.send(upload('int32', [7, 8, 9]), 0); comm.recv(recv, 0); });
      expect(wait).toHaveBeenCalledTimes(3); // one per call the group made, after its end
      expectSame(download(recv), [7, 8, 9], 0, 'int32');
      await comm.allReduceAsync(x);
      expect(wait).toHaveBeenCalledTimes(3); // the Async form polls with timers instead
      expect(coll).toHaveBeenCalledTimes(4);
      expect(group).toHaveBeenCalledTimes(2);
    } finally {
      jest.restoreAllMocks();
    }
  });

  test('a launch NCCL never finishes: NCCL_TIMEOUT after timeoutMs, the communicator aborted', async () => {
    const c = await new nccl.Communicator(1, nccl.getUniqueId(), 0, { timeoutMs: 30_000, blocking: false }).ready;
    const real = native.ncclCollective.bind(native);
    jest.spyOn(native, 'ncclCollective').mockImplementation((...a) => { real(...a); return 7; });
    jest.spyOn(native, 'ncclCommWait').mockReturnValue(7);
    try {
      expectCode(() => c.allReduce(upload('float32', [1])), NcclError, 'NCCL_TIMEOUT');
      expect(c.usable).toBe(false);
    } finally {
      jest.restoreAllMocks();
    }
    expectCode(() => c.allReduce(upload('float32', [1])), NcclError, 'NCCL_TIMEOUT');
  });

  test('an Async call on a communicator still initialising waits for it', async () => {
    using c = new nccl.Communicator(1, nccl.getUniqueId(), 0);
    const x = upload('float32', [3, 4]);
    await c.allReduceAsync(x);
    expectSame(download(x), [3, 4], 0, 'float32');
  });

  test('initAll([0]): one communicator per device through one group', async () => {
    const [c] = await nccl.initAllAsync([0]);
    expect([c.nranks, c.rank, c.device]).toEqual([1, 0, 0]);
    const x = upload('int64', [1n, -2n]);
    nccl.group(() => c.allReduce(x, { op: 'prod' }));
    await c.synchronizeAsync();
    expectSame(download(x), [1n, -2n], 0, 'int64');
    await c.disposeAsync();
    expect(c.usable).toBe(false);
  });

  test('{ blocking: false } and initAll({ blocking: false }): the non-blocking communicator gives the same results', async () => {
    const c = await new nccl.Communicator(1, nccl.getUniqueId(), 0, { blocking: false }).ready;
    const x = upload('float64', [1.5, NaN, -Infinity]);
    c.allReduce(x, { op: 'max' });
    expectSame(download(x), [1.5, NaN, -Infinity], 0, 'float64');
    const recv = poisoned('int32', 2);
    nccl.group(() => { c.send(upload('int32', [4, 5]), 0); c.recv(recv, 0); });
    expectSame(download(recv), [4, 5], 0, 'int32');
    await c.disposeAsync();
    const [g] = await nccl.initAllAsync([0], { blocking: false });
    const y = upload('float32', [2, 3]);
    await g.allReduceAsync(y, { op: 'prod' });
    expectSame(download(y), [2, 3], 0, 'float32');
    await g.disposeAsync();
  });

  test('dispose, abort, Symbol.dispose: later calls fail with typed errors, repeats are no-ops', async () => {
    const a = await new nccl.Communicator(1, nccl.getUniqueId(), 0).ready;
    a.dispose();
    a.dispose();
    expectCode(() => a.allReduce(gpuarray.zeros([2], 'float32')), TypeError, 'ERR_USE_AFTER_DISPOSE');
    await expect(a.allReduceAsync(gpuarray.zeros([2], 'float32'))).rejects.toMatchObject({ code: 'ERR_USE_AFTER_DISPOSE' });
    const b = await new nccl.Communicator(1, nccl.getUniqueId(), 0).ready;
    b.abort();
    b.abort();
    expectCode(() => b.broadcast(gpuarray.zeros([2], 'float32')), NcclError, 'NCCL_ABORTED');
    expect(b.error?.code).toBe('NCCL_ABORTED');
    let kept: NcclCommunicator;
    {
      using c = await new nccl.Communicator(1, nccl.getUniqueId(), 0).ready;
      kept = c;
    }
    expect(kept.usable).toBe(false);
  });

  test('a missing peer: nranks 2 with one rank times out with NCCL_TIMEOUT, aborted, and the process goes on', async () => {
    let ticks = 0;
    const timer = setInterval(() => ticks++, 10);
    const start = Date.now();
    const lonely = new nccl.Communicator(2, nccl.getUniqueId(), 0, { timeoutMs: 1500 });
    try {
      await expect(lonely.ready).rejects.toMatchObject({ name: 'NcclError', code: 'NCCL_TIMEOUT', call: 'ncclCommInitRankConfig' });
    } finally {
      clearInterval(timer);
    }
    const took = Date.now() - start;
    expect(took).toBeGreaterThanOrEqual(1400);
    expect(took).toBeLessThan(15_000);
    expect(ticks).toBeGreaterThan(20); // the event loop ran while waiting
    expect(lonely.usable).toBe(false);
    expectCode(() => lonely.allReduce(gpuarray.zeros([2], 'float32')), NcclError, 'NCCL_TIMEOUT');
    const x = upload('float32', [5]);
    comm.allReduce(x);
    expectSame(download(x), [5], 0, 'float32');
  });

  test('a worker_thread rank: the id crosses postMessage and the worker reduces on its own communicator', async () => {
    const w = new Worker(`
      const { parentPort } = require('worker_threads');
      const { nccl, gpuarray } = require(${JSON.stringify(DIST)});
      parentPort.once('message', async (id) => {
        try {
          const comm = await new nccl.Communicator(1, id, 0, { device: 0 }).ready;
          const x = gpuarray.toGpu(new Float32Array([1, 2, 3]));
          await comm.allReduceAsync(x, { op: 'sum' });
          parentPort.postMessage({ values: Array.from(x.get()), rank: comm.rank });
          await comm.disposeAsync();
        } catch (e) { parentPort.postMessage({ error: String(e && e.stack || e) }); }
      });`, { eval: true });
    const reply = new Promise((resolve) => w.once('message', resolve));
    w.postMessage(nccl.getUniqueId());
    expect(await reply).toEqual({ values: [1, 2, 3], rank: 0 });
    await w.terminate();
  });

  test('a child process joins by unique id (hex on its command line); the parent that made the id stays alive', async () => {
    const id = nccl.getUniqueId();
    const script = `
      const { nccl, gpuarray } = require(${JSON.stringify(DIST)});
      const id = Uint8Array.from(Buffer.from(process.argv[1], 'hex'));
      (async () => {
        const comm = await new nccl.Communicator(1, id, 0, { timeoutMs: 30000 }).ready;
        const x = gpuarray.toGpu(new Int32Array([7, -8]));
        await comm.allReduceAsync(x, { op: 'min' });
        console.log(JSON.stringify(Array.from(x.get())));
        await comm.disposeAsync();
      })().catch((e) => { console.error(e); process.exit(1); });`;
    const p = spawn(process.execPath, ['-e', script, Buffer.from(id).toString('hex')], { stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '', err = '';
    p.stdout.on('data', (b) => (out += b));
    p.stderr.on('data', (b) => (err += b));
    const code = await new Promise((resolve) => p.on('exit', resolve)); // not spawnSync: this process keeps answering
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(JSON.parse(out)).toEqual([7, -8]);
  });
});
