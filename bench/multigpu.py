"""PyTorch side of bench/multigpu.js: torch.distributed allReduce (NCCL backend, one process a
GPU, float32 sum in place) and peer copies. Prints one JSON line.
   python3 bench/multigpu.py N '[[bytes, iters], ...]'
Each size: 5 warm-ups, a barrier, `iters` all_reduce calls timed by the wall clock after a device
synchronise; the slowest rank's time counts (as nccl-tests reports). NVLS stays off."""
import json
import os
import socket
import sys
import tempfile
import time

os.environ.setdefault("NCCL_NVLS_ENABLE", "0")
os.environ.setdefault("TORCH_SYMM_MEM_DISABLE_MULTICAST", "1")

import torch
import torch.distributed as dist
import torch.multiprocessing as mp


def rank_main(rank, n, port, sizes, out_path):
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", world_size=n, rank=rank,
                            device_id=torch.device("cuda", rank))
    rows = []
    for size, iters in sizes:
        x = torch.ones(size // 4, dtype=torch.float32, device="cuda")
        for _ in range(5):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        dist.barrier()
        torch.cuda.synchronize()
        t0 = time.perf_counter()
        for _ in range(iters):
            dist.all_reduce(x)
        torch.cuda.synchronize()
        s = torch.tensor([(time.perf_counter() - t0) / iters], dtype=torch.float64, device="cuda")
        dist.all_reduce(s, op=dist.ReduceOp.MAX)
        t = s.item()
        rows.append({"size": size, "us": t * 1e6, "busbw": size * 2 * (n - 1) / n / t / 1e9})
        del x
    if rank == 0:
        with open(out_path, "w") as f:
            json.dump(rows, f)
    dist.destroy_process_group()


def peer_rows():
    nbytes = 256 * 2**20
    a = torch.ones(nbytes // 4, dtype=torch.float32, device="cuda:0")
    b = torch.empty(nbytes // 4, dtype=torch.float32, device="cuda:1")
    rows = []

    def timed(name, fn, iters=20):
        fn()
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)
        t0 = time.perf_counter()
        for _ in range(iters):
            fn()
        torch.cuda.synchronize(0)
        torch.cuda.synchronize(1)
        rows.append({"name": name, "gbs": nbytes / ((time.perf_counter() - t0) / iters) / 1e9})

    timed("b.copy_(a) 0→1", lambda: b.copy_(a))
    timed("a.to('cuda:1')", lambda: a.to("cuda:1"))
    timed("b.copy_(a) 0→1 (torch enables peer access itself)", lambda: b.copy_(a))
    return rows


def main():
    n = int(sys.argv[1])
    sizes = json.loads(sys.argv[2])
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with tempfile.TemporaryDirectory() as tmp:
        out_path = os.path.join(tmp, "rows.json")
        mp.spawn(rank_main, args=(n, port, sizes, out_path), nprocs=n, join=True)
        with open(out_path) as f:
            rows = json.load(f)
    print(json.dumps({"version": torch.__version__, "nccl": ".".join(map(str, torch.cuda.nccl.version())),
                      "allreduce": rows, "peer": peer_rows()}))


if __name__ == "__main__":
    main()
