#!/usr/bin/env python3
"""The ops of bench/run.js measured in PyTorch and CuPy, for the ratio columns of its table.

Usage: python3 bench/peers.py '<json>'
  json: {"warmup": W, "reps": R, "cases": [{"id": "0", "kind": "h2d", "iters": 1, "bytes": N, ...}]}

Prints one JSON object on stdout (everything else goes to stderr):
  {"torch": {"available": true, "version": "...", "results": {"<id>": {"seconds": s, "note": ...}}},
   "cupy": {"available": false, "reason": "No module named 'cupy'", "results": {}}}
Each framework is tried on its own, and each case on its own: an error is reported, not raised.
Timing matches run.js: W untimed batches, then the median wall time of R batches, each ended by a
device synchronize. `seconds` is the time of one batch of `iters` ops.

To add an op: give both classes a method named like the case's peer kind, taking the case dict and
returning (batch, note, cleanup); note is None when the op is the same as nodecuda's.
"""

import json
import statistics
import sys
import time


def time_batches(batch, sync, warmup, reps):
    for _ in range(warmup):
        batch()
        sync()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        batch()
        sync()
        times.append((time.perf_counter_ns() - t0) / 1e9)
    return statistics.median(times)


class Torch:
    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch = torch
        self.version = torch.__version__
        self.sync = torch.cuda.synchronize

    def launch(self, case):
        # torch has no user-facing empty kernel; _sleep(0) launches its spin kernel for 0 cycles.
        sleep, iters = self.torch.cuda._sleep, case["iters"]

        def batch():
            for _ in range(iters):
                sleep(0)

        return batch, "torch.cuda._sleep(0) (spin kernel, 0 cycles)", None

    def _buffers(self, case):
        t, n = self.torch, case["bytes"]
        # fill_ maps every host page before timing, as run.js does.
        host = t.empty(n, dtype=t.uint8, pin_memory=case["pinned"]).fill_(1)
        return host, t.empty(n, dtype=t.uint8, device="cuda")

    def h2d(self, case):
        host, dev = self._buffers(case)
        return lambda: dev.copy_(host), None, self.torch.cuda.empty_cache

    def d2h(self, case):
        host, dev = self._buffers(case)
        # copy_ into a preallocated tensor, like memcpyDtoh; .cpu() would also allocate.
        return lambda: host.copy_(dev), None, self.torch.cuda.empty_cache

    def alloc(self, case):
        t, n, iters = self.torch, case["bytes"], case["iters"]

        def batch():
            for _ in range(iters):
                x = t.empty(n, dtype=t.uint8, device="cuda")
                del x

        return batch, None, t.cuda.empty_cache


class Cupy:
    def __init__(self):
        import cupy
        import cupyx
        import numpy

        cupy.cuda.runtime.getDeviceCount()  # raises when there is no driver or device
        self.cp, self.cupyx, self.np = cupy, cupyx, numpy
        self.version = cupy.__version__
        self.sync = cupy.cuda.Device().synchronize

    def free_pools(self):
        self.cp.get_default_memory_pool().free_all_blocks()
        self.cp.get_default_pinned_memory_pool().free_all_blocks()

    def launch(self, case):
        kernel = self.cp.RawKernel('extern "C" __global__ void empty() {}', "empty")
        iters = case["iters"]

        def batch():
            for _ in range(iters):
                kernel((1,), (1,), ())

        return batch, None, None

    def _buffers(self, case):
        np, n = self.np, case["bytes"]
        host = self.cupyx.empty_pinned(n, np.uint8) if case["pinned"] else np.empty(n, np.uint8)
        host.fill(1)  # maps every host page before timing, as run.js does
        return host, self.cp.empty(n, self.cp.uint8)

    def h2d(self, case):
        host, dev = self._buffers(case)
        return lambda: dev.set(host), None, self.free_pools

    def d2h(self, case):
        host, dev = self._buffers(case)
        return lambda: dev.get(out=host), None, self.free_pools

    def alloc(self, case):
        cp, n, iters = self.cp, case["bytes"], case["iters"]

        def batch():
            for _ in range(iters):
                x = cp.empty(n, cp.uint8)
                del x

        return batch, None, self.free_pools


def run_framework(cls, request):
    try:
        peer = cls()
    except Exception as e:  # ImportError, no GPU, broken install: skip this framework only
        return {"available": False, "reason": f"{type(e).__name__}: {e}", "results": {}}
    results = {}
    for case in request["cases"]:
        try:
            batch, note, cleanup = getattr(peer, case["kind"])(case)
            try:
                seconds = time_batches(batch, peer.sync, request["warmup"], request["reps"])
            finally:
                del batch  # drops the buffers the closure holds before cleanup frees pools
                if cleanup:
                    cleanup()
            results[case["id"]] = {"seconds": seconds}
            if note:
                results[case["id"]]["note"] = note
        except Exception as e:
            results[case["id"]] = {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
    return {"available": True, "version": peer.version, "results": results}


def main():
    request = json.loads(sys.argv[1])
    # Libraries may print while importing or compiling; keep stdout for the JSON answer alone.
    stdout, sys.stdout = sys.stdout, sys.stderr
    report = {"torch": run_framework(Torch, request), "cupy": run_framework(Cupy, request)}
    stdout.write(json.dumps(report) + "\n")


if __name__ == "__main__":
    main()
