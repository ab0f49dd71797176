/**
 * The `nccl` namespace: NCCL collectives across GPUs in threads, processes and hosts
 * (docs/multigpu.md). libnccl.so.2 is opened on first use; nothing here needs it to load.
 * @example
 * import { nccl, gpuarray } from 'nodecuda';
 * const id = nccl.getUniqueId();                       // send to the other ranks
 * const comm = await new nccl.Communicator(1, id, 0).ready;
 * const x = gpuarray.toGpu(new Float32Array([1, 2, 3]));
 * await comm.allReduceAsync(x, { op: 'sum' });
 * comm.dispose();
 */
import { getUniqueId, isAvailable, version } from './library';
import { Communicator, initAll, initAllAsync } from './communicator';
import { group } from './group';

/**
 * NCCL collectives across GPUs in threads, processes and hosts (docs/multigpu.md).
 * @example
 * const comm = await new nccl.Communicator(nranks, id, rank).ready;
 */
export const nccl = Object.freeze({
  version,
  isAvailable,
  getUniqueId,
  /** One rank of an NCCL communicator (ncclComm_t), on one GPU, made on every rank from the same getUniqueId() bytes. */
  Communicator,
  group,
  initAll,
  initAllAsync,
});
export type { Communicator } from './communicator';
export type { CommunicatorOptions, CollectiveOptions, ReduceOptions, RootOptions, ReduceOp } from './args';
