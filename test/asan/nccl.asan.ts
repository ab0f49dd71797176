/**
 * NCCL collectives' buffers against the CPU driver double (NCCL simulated: init, split and state
 * answer at once; a collective that reaches NCCL is recorded, not run). An `out` that shares
 * memory with `x` other than in NCCL's in-place forms is refused before NCCL sees it (NCCL would
 * read and write the two in an unspecified order: wrong results, no error); the in-place forms
 * (the same address; x at its rank's block of out for allGather; out at its rank's block of x for
 * reduceScatter) and separate buffers reach NCCL.
 */
import { nccl } from '../../lib';
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

(nccl.isAvailable() ? test : test.skip)('an out that partly overlaps x is refused (ERR_NCCL_OVERLAP); in-place forms and separate buffers pass', () => {
  const r = runFake(`
    (async () => {
      const nc = require(process.env.NODECUDA_DIST);
      const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
      const g = nc.gpuarray;
      const reached = [];
      native.ncclCommInitRank = () => ({ fake: true });
      native.ncclCommSplitWork = () => 0;
      native.ncclCommState = () => 0;
      native.ncclCommRelease = () => {};
      native.ncclCollective = (h, kind, send, recv) => { reached.push([kind, Number(recv - send)]); return 0; };
      const c = new nc.nccl.Communicator(1, new Uint8Array(128).fill(7), 0, { device: 0 });
      await c.ready;
      const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
      const m = g.zeros([17], 'float32'); // views of one allocation
      const head = m.index('0:8'), shifted = m.index('1:9'), tail = m.index('9:17');
      const refused = [
        err(() => c.allReduce(head, { out: shifted })), err(() => c.reduce(shifted, { out: head })),
        err(() => c.broadcast(head, { out: shifted })),
        err(() => c.allGather(head, { out: shifted })), err(() => c.reduceScatter(shifted, { out: head })),
      ];
      const before = reached.length;
      const passed = [
        err(() => c.allReduce(head, { out: head.reshape(2, 4) })), // the same address: in place
        err(() => c.allReduce(head, { out: tail })), err(() => c.broadcast(head)),
        err(() => c.allGather(head, { out: head.reshape(1, 8) })), // rank 0's block of out is x
        err(() => c.reduceScatter(head, { out: head.index('0:8') })), // out is rank 0's block of x
        err(() => c.allGather(head, { out: tail })),
      ];
      c.dispose();
      console.log(JSON.stringify({ refused, before, passed, reached }));
    })();
  `);
  expectClean(r);
  const o = r.out as { refused: unknown[]; before: number; passed: unknown[]; reached: unknown[] };
  expect(o.refused).toEqual(['allReduce', 'reduce', 'broadcast', 'allGather', 'reduceScatter'].map((call) => ({
    name: 'RangeError', code: 'ERR_NCCL_OVERLAP',
    message: expect.stringMatching(new RegExp(`^Communicator\\.${call}\\(\\): "out" shares memory with "x" other than in place`)),
  })));
  expect(o.before).toBe(0); // nothing refused reached NCCL
  expect(o.passed).toEqual([null, null, null, null, null, null]);
  // [collective kind, out - x in bytes]: allReduce 0, broadcast 2, allGather 3, reduceScatter 4
  expect(o.reached).toEqual([[0, 0], [0, 36], [2, 0], [3, 0], [4, 0], [3, 36]]);
});
