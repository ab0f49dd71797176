/**
 * NCCL collectives' buffers against the CPU driver double (NCCL simulated: init, split and state
 * answer at once; a collective that reaches NCCL is recorded, not run). An `out` that shares
 * memory with `x` other than in NCCL's in-place forms is refused before NCCL sees it (NCCL would
 * read and write the two in an unspecified order: wrong results, no error); the in-place forms
 * (the same address; x at its rank's block of out for allGather; out at its rank's block of x for
 * reduceScatter) and separate buffers reach NCCL. A synchronous call's `timeoutMs` bounds its
 * wait for NCCL's launch on a non-blocking communicator.
 */
import { nccl } from '../../lib';
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

/** The child's start: the package, the addon, and NCCL's init, split, state and release simulated. */
const SIMULATED = `
  const nc = require(process.env.NODECUDA_DIST);
  const { native } = require(process.env.NODECUDA_DIST + '/cuda/native');
  const g = nc.gpuarray;
  native.ncclCommInitRank = () => ({ fake: true });
  native.ncclCommSplitWork = () => 0;
  native.ncclCommState = () => 0;
  native.ncclCommRelease = () => {};
  const err = (f) => { try { f(); return null; } catch (e) { return { name: e.name, code: e.code, message: e.message }; } };
`;

(nccl.isAvailable() ? test : test.skip)('an out that partly overlaps x is refused (ERR_NCCL_OVERLAP); in-place forms and separate buffers pass', () => {
  const r = runFake(SIMULATED + `
    (async () => {
      const reached = [];
      native.ncclCollective = (h, kind, send, recv) => { reached.push([kind, Number(recv - send)]); return 0; };
      const c = new nc.nccl.Communicator(1, new Uint8Array(128).fill(7), 0, { device: 0 });
      await c.ready;
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

(nccl.isAvailable() ? test : test.skip)('synchronous calls: timeoutMs bounds the wait for NCCL\'s launch on a non-blocking communicator', () => {
  const r = runFake(SIMULATED + `
    (async () => {
      const waits = [];
      let answer = 0; // ncclCommWait's answer: 0 launched, 7 still in progress at the deadline
      native.ncclGroup = () => 0;
      native.ncclCollective = () => 7; // ncclInProgress: NCCL's thread launches the call
      native.ncclCommWait = (h, ms) => { waits.push(ms); return answer; };
      native.ncclStreamDoneAsync = async () => {};
      const x = g.zeros([8], 'float32');
      const id = (k) => new Uint8Array(128).fill(k);
      const nb = await new nc.nccl.Communicator(1, id(1), 0, { device: 0, blocking: false, timeoutMs: 4000 }).ready;
      nb.allReduce(x);                                     // the communicator's timeoutMs
      nb.allReduce(x, { timeoutMs: 25 });
      nb.send(x, 0, { timeoutMs: 7.5 });
      nb.allGather(x, { timeoutMs: 30 }).dispose();
      nc.nccl.group(() => { nb.send(x, 0, { timeoutMs: 40 }); nb.recv(x, 0); }); // waited for at the group's end
      const sync = waits.splice(0);
      await nb.allReduceAsync(x, { timeoutMs: 50 });       // Async forms poll with timers instead
      const async = waits.splice(0);
      const bad = [0, -1, NaN, '5', null].map((t) => err(() => nb.broadcast(x, { timeoutMs: t })));
      answer = 7;
      const late = { error: err(() => nb.reduce(x, { timeoutMs: 15 })), waits: waits.splice(0), usable: nb.usable };
      native.ncclCollective = () => 0; // a blocking communicator's call returns once launched
      const b = await new nc.nccl.Communicator(1, id(2), 0, { device: 0, timeoutMs: 4000 }).ready;
      b.allReduce(x, { timeoutMs: 5 });
      const blocking = { waits: waits.splice(0), bad: err(() => b.recv(x, 0, { timeoutMs: -3 })) };
      b.dispose();
      console.log(JSON.stringify({ sync, async, bad, late, blocking }));
    })();
  `);
  expectClean(r);
  const o = r.out as Record<string, unknown>;
  expect(o.sync).toEqual([4000, 25, 7.5, 30, 40, 4000]);
  expect(o.async).toEqual([]);
  expect(o.bad).toEqual(Array(5).fill({ name: 'RangeError', code: 'ERR_OUT_OF_RANGE',
    message: expect.stringMatching(/^The "timeoutMs" option must be a positive number of milliseconds/) }));
  expect(o.late).toEqual({ waits: [15], usable: false, // aborted
    error: { name: 'NcclError', code: 'NCCL_TIMEOUT', message: expect.stringMatching(/^ncclReduce timed out: NCCL did not launch the work within 15 ms/) } });
  // A blocking communicator: nothing to wait for (NCCL blocks in the call); the value is still checked.
  expect(o.blocking).toEqual({ waits: [], bad: { name: 'RangeError', code: 'ERR_OUT_OF_RANGE', message: expect.any(String) } });
});
