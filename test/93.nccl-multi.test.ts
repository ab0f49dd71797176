/**
 * Layer 93: NCCL across several GPUs (every GPU visible, at most 8). Skipped, with the reason in
 * the title, where fewer than 2 GPUs or no libnccl are found; test/92 covers one rank.
 * - one thread driving every GPU (nccl.initAll, a group per call): every collective × dtype × op
 *   against the CPU reference, in place and into `out`, default outputs on each rank's device,
 *   NaN and ±Inf, a large array (NCCL's pipelined protocols), send/recv in a ring;
 * - one rank per worker_thread and one rank per child process, synchronous and Async forms;
 * - examples/data-parallel.js on every GPU gives the one-GPU run's weights.
 * Rank data is chosen so that every order of summation gives the same bits (multiples of 0.5 in
 * [-4, 4]; integers wrap): NCCL's ring and tree orders then agree exactly with the reference.
 */
import { spawn, spawnSync } from 'child_process';
import * as fs from 'fs';
import * as path from 'path';
import { Worker } from 'worker_threads';
import { driver, gpuarray, nccl, withDevice } from '../lib';
import type { DTypeName, GPUArray, NcclCommunicator, NcclReduceOp } from '../lib';
import { hasGpu } from './helpers';
import { NCCL_DTYPES, opsFor, poisoned, reference } from './nccl-reference';
import { V, download, expectSame, isInt, kind, pool, store, upload } from './reference';

const ROOT = path.resolve(__dirname, '..');
const DIST = path.join(ROOT, 'dist');
const TIMEOUT = 180_000;
const gpus = hasGpu ? Math.min(8, driver.Device.count()) : 0;
const why = !hasGpu ? 'no GPU' : gpus < 2 ? `needs 2 GPUs, ${gpus} visible` : !nccl.isAvailable() ? 'libnccl not found' : '';
const describeMulti = why ? describe.skip : describe;
const N = gpus;
const LEN = 67;

/**
 * Rank r's input for `op`. Floats: multiples of 0.5 in [-4, 4] (integers for prod), exact in
 * float16 and in every summation order (bfloat16 prod: integers in [-2, 2], whose products stay
 * exact in its 8 bits); elements 0-2 hold Inf, Inf against -Inf, and (not for
 * max/min, whose NaN rule NCCL leaves to the type) NaN. Integers: the dtype's extremes, wrapping.
 */
function rankData(d: DTypeName, op: NcclReduceOp, r: number, len = LEN): V[] {
  if (isInt(d)) {
    const p = pool(d);
    return Array.from({ length: len }, (_, i) => p[(i + 7 * r) % p.length]);
  }
  const f = (i: number): number => op === 'prod' ? (d === 'bfloat16' ? ((i * 7 + r * 5) % 5) - 2 : ((i * 7 + r * 5) % 9) - 4)
    : (((i * 7 + r * 13) % 17) - 8) / 2;
  if (kind(d) === 'c') return Array.from({ length: len }, (_, i) => store(d, { re: f(i), im: f(i + 3) }));
  return Array.from({ length: len }, (_, i) => {
    if (i === 0 && r === 0) return store(d, Infinity);
    if (i === 1 && r < 2) return store(d, r === 0 ? Infinity : -Infinity);
    if (i === 2 && r === 1 && op !== 'max' && op !== 'min') return store(d, NaN);
    return store(d, f(i));
  });
}

describeMulti(`NCCL on ${N} GPUs, one thread (nccl.initAll)${why ? ` [skipped: ${why}]` : ''}`, () => {
  let comms: NcclCommunicator[];
  const ranks = Array.from({ length: N }, (_, r) => r);
  /** Arrays of rank r on device r. */
  const onRanks = (f: (r: number) => GPUArray): GPUArray[] => ranks.map((r) => withDevice(r, () => f(r)));
  /** One call per rank inside one NCCL group (one thread drives every GPU). */
  const each = <T>(f: (c: NcclCommunicator, r: number) => T): T[] => nccl.group(() => comms.map(f));

  beforeAll(async () => {
    comms = await nccl.initAllAsync(ranks, { timeoutMs: 60_000 });
  }, TIMEOUT);
  afterAll(async () => {
    for (const c of comms ?? []) await c.disposeAsync();
  });

  test('the communicators: rank r on device r, nranks each', () => {
    expect(comms.map((c) => [c.rank, c.device, c.nranks])).toEqual(ranks.map((r) => [r, r, N]));
  });

  describe.each(NCCL_DTYPES)('%s', (d) => {
    test.each(opsFor(d))('allReduce, reduce and reduceScatter %s: in place and into out', (op) => {
      const data = ranks.map((r) => rankData(d, op, r));
      const want = reference(d, op, data);
      const xs = onRanks((r) => upload(d, data[r]));
      expect(each((c, r) => c.allReduce(xs[r], { op }))).toEqual(xs);
      for (const r of ranks) expectSame(download(xs[r]), want, 0, d, `allReduce ${op} in place, rank ${r}`);
      const srcs = onRanks((r) => upload(d, data[r]));
      const outs = onRanks(() => poisoned(d, LEN));
      each((c, r) => c.allReduce(srcs[r], { op, out: outs[r] }));
      for (const r of ranks) {
        expectSame(download(outs[r]), want, 0, d, `allReduce ${op} into out, rank ${r}`);
        expectSame(download(srcs[r]), data[r], 0, d, `allReduce ${op}: rank ${r}'s input unchanged`);
      }
      const root = N - 1;
      const rs = onRanks((r) => upload(d, data[r]));
      const rOuts = onRanks(() => poisoned(d, LEN));
      each((c, r) => c.reduce(rs[r], { op, root, out: rOuts[r] }));
      expectSame(download(rOuts[root]), want, 0, d, `reduce ${op} to root ${root}`);
      for (const r of ranks.slice(0, root)) expectSame(download(rOuts[r]), download(poisoned(d, LEN)), 0, d, `reduce: rank ${r}'s out untouched`);
      // reduceScatter: N blocks of LEN elements; rank r gets block r, on its own device by default.
      const big = ranks.map((r) => Array.from({ length: N }, (_, b) => rankData(d, op, (r + b) % N)).flat());
      const bigWant = reference(d, op, big);
      const scattered = each((c, r) => c.reduceScatter(withDevice(r, () => upload(d, big[r])), { op }));
      for (const r of ranks) {
        expect([scattered[r].device, ...scattered[r].shape]).toEqual([r, LEN]);
        expectSame(download(scattered[r]), bigWant.slice(r * LEN, (r + 1) * LEN), 0, d, `reduceScatter ${op}, rank ${r}`);
      }
    });

    test('broadcast from the last rank, allGather, and send/recv around the ring', () => {
      const data = ranks.map((r) => rankData(d, 'sum', r));
      const root = N - 1;
      const xs = onRanks((r) => upload(d, data[r]));
      each((c, r) => c.broadcast(xs[r], { root }));
      for (const r of ranks) expectSame(download(xs[r]), data[root], 0, d, `broadcast in place, rank ${r}`);
      const gathered = each((c, r) => c.allGather(withDevice(r, () => upload(d, data[r]))));
      for (const r of ranks) {
        expect([gathered[r].device, ...gathered[r].shape]).toEqual([r, N, LEN]);
        expectSame(download(gathered[r]), data.flat(), 0, d, `allGather, rank ${r}`);
      }
      const sends = onRanks((r) => upload(d, data[r]));
      const recvs = onRanks(() => poisoned(d, LEN));
      each((c, r) => { c.send(sends[r], (r + 1) % N); c.recv(recvs[r], (r + N - 1) % N); });
      for (const r of ranks) expectSame(download(recvs[r]), data[(r + N - 1) % N], 0, d, `ring recv, rank ${r}`);
    });
  });

  test('a large allReduce (64 MiB + 12 B of float32 a rank) and avg over float64', async () => {
    const n = (1 << 24) + 3;
    const xs = onRanks((r) => gpuarray.arange(0, n, 1, 'int32').mod(1024).add(r).astype('float32'));
    each((c, r) => c.allReduce(xs[r]));
    await Promise.all(comms.map((c) => c.synchronizeAsync()));
    const want = (i: number): number => ranks.reduce((s, r) => s + (i % 1024) + r, 0);
    for (const r of ranks) {
      const got = xs[r].get() as Float32Array;
      const bad = [];
      for (let i = 0; i < n; i += 4093) if (got[i] !== want(i)) bad.push([i, got[i]]);
      if (got[n - 1] !== want(n - 1)) bad.push([n - 1, got[n - 1]]);
      expect({ rank: r, bad: bad.slice(0, 5) }).toEqual({ rank: r, bad: [] });
    }
    const avg = onRanks((r) => gpuarray.arange(0, 1000, 1, 'float64').mul(r + 1));
    await Promise.all(comms.map((c, r) => c.allReduceAsync(avg[r], { op: 'avg' })));
    for (const r of ranks) expect(Array.from((avg[r].get() as Float64Array).slice(0, 3))).toEqual([0, 1, 2].map((i) => (i * (N + 1)) / 2));
  }, TIMEOUT);

  test('initAll({ blocking: true }): grouped calls run on blocking communicators; ungrouped ones are refused, never a hang', async () => {
    const fast = await nccl.initAllAsync(ranks, { timeoutMs: 60_000, blocking: true });
    try {
      const xs = onRanks((r) => upload('float32', [r + 1, 2]));
      nccl.group(() => fast.forEach((c, r) => c.allReduce(xs[r])));
      for (const r of ranks) expectSame(download(xs[r]), [(N * (N + 1)) / 2, 2 * N], 0, 'float32', `rank ${r}`);
      expect(() => fast[0].allReduce(xs[0])).toThrow(expect.objectContaining({ code: 'ERR_NCCL_GROUP_REQUIRED' }));
      await expect(fast[0].allReduceAsync(xs[0])).rejects.toMatchObject({ code: 'ERR_NCCL_GROUP_REQUIRED' });
      expect(fast.every((c) => c.usable)).toBe(true);
    } finally {
      for (const c of fast) await c.disposeAsync();
    }
  }, TIMEOUT);

  test('an array on another device is refused before NCCL sees it', () => {
    const wrong = withDevice(1, () => gpuarray.zeros([4], 'float32'));
    expect(() => comms[0].allReduce(wrong)).toThrow(expect.objectContaining({ code: 'ERR_NCCL_DEVICE_MISMATCH' }));
    expect(comms.every((c) => c.usable)).toBe(true);
  });
});

describeMulti(`NCCL on ${N} GPUs, one rank per worker_thread and per process${why ? ` [skipped: ${why}]` : ''}`, () => {
  // Each rank: allReduce sum (synchronous form: its first use of the peers waits for NCCL's
  // launch) and max (Async form) of int32, float32 and float64, then a ring send/recv in a group.
  const rankScript = (idExpr: string, rankExpr: string, done: string, blocking = true): string => `
    const { nccl, gpuarray, driver } = require(${JSON.stringify(DIST)});
    (async () => {
      const id = ${idExpr}, rank = ${rankExpr}, n = ${N};
      driver.useDevice(rank);
      const comm = await new nccl.Communicator(n, id, rank, { device: rank, timeoutMs: 60000, blocking: ${blocking} }).ready;
      const out = {};
      for (const [dt, T] of [['int32', Int32Array], ['float32', Float32Array], ['float64', Float64Array]]) {
        const x = gpuarray.toGpu(T.from([1, -2, dt === 'int32' ? 3 : 3.5, 1e6].map((v) => v * (rank + 1))));
        comm.allReduce(x);
        const m = gpuarray.toGpu(T.from([rank, 5 - rank, 7]));
        await comm.allReduceAsync(m, { op: 'max' });
        out[dt] = [Array.from(x.get()), Array.from(m.get())];
      }
      const send = gpuarray.toGpu(new Float64Array([rank, rank * 10])), recv = gpuarray.zeros([2], 'float64');
      nccl.group(() => { comm.send(send, (rank + 1) % n); comm.recv(recv, (rank + n - 1) % n); });
      out.ring = Array.from(recv.get());
      await comm.disposeAsync();
      ${done}
    })().catch((e) => { console.error(e && e.stack || e); process.exit(1); });`;
  const expected = (rank: number): Record<string, unknown> => {
    const tri = (N * (N + 1)) / 2;
    const out: Record<string, unknown> = {};
    for (const dt of ['int32', 'float32', 'float64']) {
      const base = [1, -2, dt === 'int32' ? 3 : 3.5, 1e6];
      out[dt] = [base.map((v) => v * tri), [N - 1, 5, 7]];
    }
    const prev = (rank + N - 1) % N;
    out.ring = [prev, prev * 10];
    return out;
  };

  test.each([true, false])('worker_threads: one rank each, ids through postMessage (blocking: %s)', async (blocking) => {
    const id = nccl.getUniqueId();
    const body = rankScript('require("worker_threads").workerData.id', 'require("worker_threads").workerData.rank',
      'require("worker_threads").parentPort.postMessage(out);', blocking);
    const replies = await Promise.all(Array.from({ length: N }, (_, rank) => new Promise((resolve, reject) => {
      const w = new Worker(body, { eval: true, workerData: { id, rank } });
      w.once('message', (m) => { resolve(m); void w.terminate(); });
      w.once('error', reject);
      w.once('exit', (code) => code !== 0 && reject(new Error(`rank ${rank} exited with ${code}`)));
    })));
    expect(replies).toEqual(Array.from({ length: N }, (_, r) => expected(r)));
  }, TIMEOUT);

  test('child processes: one rank each, the id in hex on the command line', async () => {
    const hex = Buffer.from(nccl.getUniqueId()).toString('hex');
    const body = rankScript("Uint8Array.from(Buffer.from(process.argv[1], 'hex'))", 'Number(process.argv[2])',
      'console.log(JSON.stringify(out));');
    const runs = Array.from({ length: N }, (_, rank) => new Promise<{ code: number | null; out: string; err: string }>((resolve) => {
      const p = spawn(process.execPath, ['-e', body, hex, String(rank)], { stdio: ['ignore', 'pipe', 'pipe'] });
      let out = '', err = '';
      p.stdout.on('data', (b) => (out += b));
      p.stderr.on('data', (b) => (err += b));
      p.on('exit', (code) => resolve({ code, out, err }));
    }));
    const results = await Promise.all(runs);
    for (const [r, res] of results.entries()) {
      expect({ rank: r, code: res.code, err: res.err }).toEqual({ rank: r, code: 0, err: '' });
      expect(JSON.parse(res.out)).toEqual(expected(r));
    }
  }, TIMEOUT);

  test(`examples/data-parallel.js on ${N} GPUs ends with the one-GPU run's weights`, () => {
    expect(fs.existsSync(path.join(DIST, 'index.js'))).toBe(true);
    const run = (gpus: number): number[] => {
      const r = spawnSync(process.execPath, [path.join(ROOT, 'examples', 'data-parallel.js'), String(gpus)],
        { cwd: ROOT, encoding: 'utf8', timeout: TIMEOUT - 30_000 });
      expect({ gpus, status: r.status, stderr: r.stderr }).toEqual({ gpus, status: 0, stderr: '' });
      expect(r.stdout).toMatch(/^All checks passed\.$/m);
      const m = /^final weights: (\[.*\])$/m.exec(r.stdout);
      expect(m).not.toBeNull();
      return JSON.parse(m![1]) as number[];
    };
    const one = run(1), all = run(N);
    // Only the order of the gradient sums differs (shards, then allReduce): float64 rounding.
    expect(all.length).toBe(one.length);
    for (let j = 0; j < one.length; j++) expect(Math.abs(all[j] - one[j])).toBeLessThan(1e-9 * Math.max(1, Math.abs(one[j])));
  }, TIMEOUT);
});
