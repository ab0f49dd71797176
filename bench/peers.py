#!/usr/bin/env python3
"""The ops of bench/run.js measured in PyTorch and CuPy, for the ratio columns of its table.

Usage: python3 bench/peers.py '<json>'     one shot: measures the request's cases, prints the report
       python3 bench/peers.py --serve      server: imports once, then one request per stdin line
  json (a request): {"warmup": W, "reps": R, "event_reps": E,
                     "cases": [{"id": "0", "kind": "h2d", "iters": 1, "bytes": N, ...}]}

One shot prints one JSON object (a report) on stdout:
  {"torch": {"available": true, "version": "...", "results": {"<id>": {"seconds": s, "note": ...}}},
   "cupy": {"available": false, "reason": "No module named 'cupy'", "results": {}}}
Server mode (bench/run.js uses it to measure each case right after nodecuda's measurement of it)
first imports both frameworks and prints one line
  {"ready": true, "torch": {"available": true, "version": "..."}, "cupy": {"available": false, "reason": "..."}}
then reads one request per line on stdin and answers each with one line holding its report (or
{"error": "..."} for a line that is not a request), flushed. Before each answer it frees torch's and
CuPy's cached memory, so that the next nodecuda case has the GPU's memory. It exits at the end of stdin.
In both modes stdout carries only these JSON lines; everything else (prints, library output on fd
1) goes to stderr.

Each framework is tried on its own, and each case on its own: an error is reported, not raised.
Timing matches run.js: W untimed batches, then the median wall time of R batches, each ended by a
device synchronize. `seconds` is the time of one batch of `iters` ops. `event_seconds`: the
median GPU time between CUDA events recorded around one batch (device idle before each), over
event_reps batches, as run.js times its own.

To add an op: give both classes a method named like the case's peer kind, taking the case dict and
returning (batch, note, cleanup); note is None when the op is the same as nodecuda's.
"""

import gc
import json
import os
import statistics
import sys
import time


def time_batches(batch, sync, warmup, reps, warmup_s=0.1):
    # At least `warmup` batches and warmup_s seconds untimed, so clocks settle before timing.
    t_end = time.perf_counter() + warmup_s
    done = 0
    while done < warmup or time.perf_counter() < t_end:
        batch()
        sync()
        done += 1
    times = []
    for _ in range(reps):
        t0 = time.perf_counter_ns()
        batch()
        sync()
        times.append((time.perf_counter_ns() - t0) / 1e9)
    return statistics.median(times)


def time_events(batch, sync, pair, reps):
    times = []
    for _ in range(reps):
        sync()
        start, stop, elapsed = pair()
        start()
        batch()
        stop()
        times.append(elapsed() / 1e3)
    return statistics.median(times)


class Torch:
    def __init__(self):
        import torch

        if not torch.cuda.is_available():
            raise RuntimeError("torch.cuda.is_available() is False")
        self.torch = torch
        self.version = torch.__version__
        self.sync = torch.cuda.synchronize

    def event_pair(self):
        a = self.torch.cuda.Event(enable_timing=True)
        b = self.torch.cuda.Event(enable_timing=True)

        def elapsed():
            b.synchronize()
            return a.elapsed_time(b)

        return a.record, b.record, elapsed

    def free_pools(self):
        self.torch.cuda.empty_cache()

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


    def _dtype(self, name):
        return getattr(self.torch, name)

    def ew(self, case):
        t, op, n = self.torch, case["op"], case["n"]
        dt = self._dtype(case["dtype"])
        if op in ("bcast", "transpose"):
            x = t.arange(n * n, device="cuda").to(dt).reshape(n, n)
            y = t.arange(n, device="cuda").to(dt)
            z = t.empty(n, n, dtype=dt, device="cuda")
            fn = (lambda: t.add(x, y, out=z)) if op == "bcast" else (lambda: z.copy_(x.t()))
            return fn, None, t.cuda.empty_cache
        x = t.arange(n, device="cuda").to(dt)
        y = t.arange(n, device="cuda").to(dt)
        z = t.empty(n, dtype=dt, device="cuda")
        fns = {"copy": lambda: z.copy_(x), "add": lambda: t.add(x, y, out=z),
               "axpy": lambda: t.add(y, x, alpha=2, out=z)}
        return fns[op], None, t.cuda.empty_cache

    def math(self, case):
        # torch.sin/exp/log(out=) on the same inputs as bench/cases/30.math.js.
        t, n, span = self.torch, case["n"], case["span"]
        dt = self._dtype(case["dtype"])
        x = t.arange(n, device="cuda", dtype=dt).mul_(span / n).add_(span / n)
        z = t.empty(n, dtype=dt, device="cuda")
        fn = getattr(t, case["op"])
        return (lambda: fn(x, out=z)), None, t.cuda.empty_cache

    def random(self, case):
        # torch's Philox (curand_uniform4 / Box-Muller) into a preallocated tensor.
        t, n = self.torch, case["n"]
        out = t.empty(n, dtype=self._dtype(case["dtype"]), device="cuda")
        gen = t.Generator(device="cuda").manual_seed(1)
        fn = (lambda: t.rand(n, out=out, generator=gen)) if case["dist"] == "uniform" else (
            lambda: t.randn(n, out=out, generator=gen))
        return fn, None, t.cuda.empty_cache

    def reduce(self, case):
        # Same data as bench/cases/50.reduce.js; results allocated per call, like ours.
        t, op, n, side = self.torch, case["op"], case["n"], case["side"] if "side" in case else 0
        if op == "small":
            x = t.arange(n, device="cuda", dtype=t.float32)
            iters = case["iters"]

            def batch():
                for _ in range(iters):
                    x.sum()

            return batch, None, None
        x = t.arange(n, device="cuda", dtype=t.float32).mul_(1 / n)
        if op in ("nansum", "nanmean"):
            x[::16] = float("nan")  # as bench/cases/50.reduce.js: every 16th element NaN
        y = x.clone()
        fns = {"sum": lambda: x.sum(), "max": lambda: x.max(), "axis0": lambda: x.view(side, side).sum(0),
               "axis1": lambda: x.view(side, side).sum(1), "sumsq": lambda: t.dot(x, x),
               "dot": lambda: t.dot(x, y), "nansum": lambda: t.nansum(x), "nanmean": lambda: t.nanmean(x)}
        note = "torch.dot(x, x) (no user reduction kernels)" if op == "sumsq" else None
        return fns[op], note, t.cuda.empty_cache

    def scan(self, case):
        t, n = self.torch, case["n"]
        dt = self._dtype(case["dtype"])
        x = t.arange(n, device="cuda").to(dt)
        z = t.empty(n, dtype=dt, device="cuda")
        return (lambda: t.cumsum(x, 0, out=z)), None, t.cuda.empty_cache

    def matmul(self, case):
        # torch.matmul(out=) with TF32 off (nodecuda's float32 default is exact, like NumPy).
        t = self.torch
        t.backends.cuda.matmul.allow_tf32 = False
        dt = self._dtype(case["dtype"])
        lead = (case["batch"],) if case["batch"] > 1 else ()
        g = t.Generator(device="cuda").manual_seed(22)
        a = t.rand(*lead, case["m"], case["k"], device="cuda", generator=g).to(dt)
        b = t.rand(*lead, case["k"], case["n"], device="cuda", generator=g).to(dt)
        out = t.empty(*lead, case["m"], case["n"], dtype=dt, device="cuda")
        return (lambda: t.matmul(a, b, out=out)), None, t.cuda.empty_cache
    def fft(self, case):
        # torch.fft on the same data as bench/cases/75.fft.js; each call allocates its result.
        t, shape = self.torch, case["shape"]
        n = 1
        for k in shape:
            n *= k
        x = t.arange(n, device="cuda", dtype=t.float32).mul_(1 / n).to(self._dtype(case["dtype"])).view(*shape)
        fns = {"fft": lambda: t.fft.fft(x), "rfft": lambda: t.fft.rfft(x), "fft2": lambda: t.fft.fft2(x)}
        return fns[case["op"]], None, t.cuda.empty_cache

    def sort(self, case):
        # Same shapes as bench/cases/80.sort.js: uniform float32 keys, uniform int32 keys in
        # [0, case["range"]), sorted float32 haystack and uniform queries.
        t, op, n = self.torch, case["op"], case["n"]
        g = t.Generator(device="cuda").manual_seed(80)
        if op == "unique":
            x = t.randint(0, case["range"], (n,), device="cuda", dtype=t.int32, generator=g)
            return (lambda: t.unique(x)), None, t.cuda.empty_cache
        if op == "bincount":
            x = t.randint(0, case["range"], (n,), device="cuda", dtype=t.int32, generator=g)
            return (lambda: t.bincount(x)), None, t.cuda.empty_cache
        if op == "histogram":
            x = t.rand(n, device="cuda", generator=g)
            return (lambda: t.histc(x, bins=case["bins"], min=0, max=1)), "torch.histc (float32 counts)", t.cuda.empty_cache
        if op == "topk":
            x = t.rand(n, device="cuda", generator=g).view(case["rows"], n // case["rows"])
            return (lambda: t.topk(x, case["k"])), None, t.cuda.empty_cache
        if op == "partition":
            raise NotImplementedError("torch has no partition (torch.kthvalue returns the k-th value alone)")
        if op == "nonzero":
            x = t.rand(n, device="cuda", generator=g)
            x = t.where(x > 0.5, x, 0)
            return (lambda: t.nonzero(x)), "torch.nonzero(x): [n, 1] int64", t.cuda.empty_cache
        if op in ("median", "quantile"):
            x = t.rand(n, device="cuda", generator=g).view(case["rows"], n // case["rows"])
            if op == "quantile":
                q = t.tensor(case["q"], device="cuda")
                return (lambda: t.quantile(x, q, dim=1)), None, t.cuda.empty_cache
            if case["rows"] == 1:
                return (lambda: t.median(x)), "torch.median(x): the lower of the two middle elements", t.cuda.empty_cache
            return (lambda: t.median(x, dim=1)), "torch.median(x, dim=1): lower middle values and indices", t.cuda.empty_cache
        if op == "searchsorted":
            a = t.sort(t.rand(case["m"], device="cuda", generator=g)).values
            v = t.rand(n, device="cuda", generator=g)
            return (lambda: t.searchsorted(a, v)), None, t.cuda.empty_cache
        x = t.rand(n, device="cuda", generator=g).view(case.get("rows", 1), n // case.get("rows", 1))
        if op == "argsort":
            return (lambda: t.argsort(x, stable=True)), "torch.argsort(x, stable=True)", t.cuda.empty_cache
        return (lambda: t.sort(x)), "torch.sort(x): values and int64 indices (torch has no keys-only sort)", t.cuda.empty_cache

    def tiny(self, case):
        t, n, iters = self.torch, case["n"], case["iters"]
        a = t.arange(n, device="cuda", dtype=t.float32)
        b = t.arange(n, device="cuda", dtype=t.float32)
        host = t.ones(n, dtype=t.float32)
        ops = {"a+b": lambda: a + b, "a*2+1": lambda: a * 2 + 1,
               "toGpu, x2, get": lambda: (host.cuda() * 2).cpu()}
        op = ops[case["op"]]

        def batch():
            for _ in range(iters):
                op()

        return batch, None, None


class Cupy:
    def __init__(self):
        import cupy
        import cupyx
        import numpy

        cupy.cuda.runtime.getDeviceCount()  # raises when there is no driver or device
        self.cp, self.cupyx, self.np = cupy, cupyx, numpy
        self.version = cupy.__version__
        self.sync = cupy.cuda.Device().synchronize

    def event_pair(self):
        a, b = self.cp.cuda.Event(), self.cp.cuda.Event()

        def elapsed():
            b.synchronize()
            return self.cp.cuda.get_elapsed_time(a, b)

        return a.record, b.record, elapsed

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


    def reduce(self, case):
        cp, op, n, side = self.cp, case["op"], case["n"], case["side"] if "side" in case else 0
        if op == "small":
            x = cp.arange(n, dtype=cp.float32)
            iters = case["iters"]

            def batch():
                for _ in range(iters):
                    x.sum()

            return batch, None, None
        x = cp.arange(n, dtype=cp.float32) * cp.float32(1 / n)
        if op in ("nansum", "nanmean"):
            x[::16] = cp.nan  # as bench/cases/50.reduce.js: every 16th element NaN
        y = x.copy()
        sumsq = cp.ReductionKernel("T x", "T y", "x * x", "a + b", "y = a", "0", "bench_sumsq")
        fns = {"sum": lambda: x.sum(), "max": lambda: x.max(), "axis0": lambda: x.reshape(side, side).sum(0),
               "axis1": lambda: x.reshape(side, side).sum(1), "sumsq": lambda: sumsq(x), "dot": lambda: cp.dot(x, y),
               "nansum": lambda: cp.nansum(x), "nanmean": lambda: cp.nanmean(x)}
        return fns[op], None, self.free_pools

    def scan(self, case):
        cp, n = self.cp, case["n"]
        dt = getattr(cp, case["dtype"])
        x = cp.arange(n, dtype=dt)
        z = cp.empty(n, dtype=dt)
        return (lambda: cp.cumsum(x, out=z)), None, self.free_pools

    def ew(self, case):
        cp, op, n = self.cp, case["op"], case["n"]
        dt = getattr(cp, case["dtype"])
        if op in ("bcast", "transpose"):
            x = cp.arange(n * n, dtype=dt).reshape(n, n)
            y = cp.arange(n, dtype=dt)
            z = cp.empty((n, n), dtype=dt)
            fn = (lambda: cp.add(x, y, out=z)) if op == "bcast" else (lambda: cp.copyto(z, x.T))
            return fn, None, self.free_pools
        x = cp.arange(n, dtype=dt)
        y = cp.arange(n, dtype=dt)
        z = cp.empty(n, dtype=dt)
        axpy = cp.ElementwiseKernel("T a, T x, T y", "T z", "z = a * x + y", "bench_axpy")
        two = dt(2)
        fns = {"copy": lambda: cp.copyto(z, x), "add": lambda: cp.add(x, y, out=z),
               "axpy": lambda: axpy(two, x, y, z)}
        return fns[op], None, self.free_pools

    def math(self, case):
        # cupy.sin/exp/log(out=) on the same inputs as bench/cases/30.math.js.
        cp, n, span = self.cp, case["n"], case["span"]
        dt = getattr(cp, case["dtype"])
        x = cp.arange(n, dtype=dt) * dt(span / n) + dt(span / n)
        z = cp.empty(n, dtype=dt)
        fn = getattr(cp, case["op"])
        return (lambda: fn(x, out=z)), None, self.free_pools

    def random(self, case):
        # CuPy's default generator (cuRAND XORWOW through cupy.random.RandomState).
        cp, n = self.cp, case["n"]
        dt = getattr(cp, case["dtype"])
        rs = cp.random.RandomState(1)
        fn = (lambda: rs.random_sample(n, dtype=dt)) if case["dist"] == "uniform" else (
            lambda: rs.standard_normal(n, dtype=dt))
        return fn, "allocates its output (no out= form)", self.free_pools

    def matmul(self, case):
        # cupy.matmul(out=) on cuBLAS; CuPy uses TF32 only with CUPY_TF32=1.
        cp = self.cp
        dt = getattr(cp, case["dtype"])
        lead = (case["batch"],) if case["batch"] > 1 else ()
        rs = cp.random.RandomState(22)
        a = rs.random_sample((*lead, case["m"], case["k"]), dtype=cp.float32).astype(dt)
        b = rs.random_sample((*lead, case["k"], case["n"]), dtype=cp.float32).astype(dt)
        out = cp.empty((*lead, case["m"], case["n"]), dtype=dt)
        return (lambda: cp.matmul(a, b, out=out)), None, self.free_pools
    def fft(self, case):
        # cupy.fft (cuFFT, plan cache on) on the same data as bench/cases/75.fft.js.
        cp, shape = self.cp, case["shape"]
        n = 1
        for k in shape:
            n *= k
        x = (cp.arange(n, dtype=cp.float32) * cp.float32(1 / n)).astype(getattr(cp, case["dtype"])).reshape(shape)
        fns = {"fft": lambda: cp.fft.fft(x), "rfft": lambda: cp.fft.rfft(x), "fft2": lambda: cp.fft.fft2(x)}
        return fns[case["op"]], None, self.free_pools

    def sort(self, case):
        cp, op, n = self.cp, case["op"], case["n"]
        rs = cp.random.RandomState(80)
        if op == "unique":
            x = rs.randint(0, case["range"], size=n, dtype=cp.int32)
            return (lambda: cp.unique(x)), None, self.free_pools
        if op == "bincount":
            x = rs.randint(0, case["range"], size=n, dtype=cp.int32)
            return (lambda: cp.bincount(x)), None, self.free_pools
        if op == "histogram":
            x = rs.rand(n, dtype=cp.float32)
            return (lambda: cp.histogram(x, bins=case["bins"], range=(0, 1))[0]), None, self.free_pools
        if op == "topk":
            raise NotImplementedError("CuPy has no topk")
        if op == "partition":
            x = rs.rand(n, dtype=cp.float32)
            return (lambda: cp.partition(x, case["kth"])), None, self.free_pools
        if op == "nonzero":
            x = rs.rand(n, dtype=cp.float32)
            x = cp.where(x > 0.5, x, cp.float32(0))
            return (lambda: cp.nonzero(x)), None, self.free_pools
        if op in ("median", "quantile"):
            x = rs.rand(n, dtype=cp.float32).reshape(case["rows"], n // case["rows"])
            if op == "quantile":
                q = cp.asarray(case["q"])
                return (lambda: cp.quantile(x, q, axis=1)), None, self.free_pools
            return (lambda: cp.median(x, axis=None if case["rows"] == 1 else 1)), None, self.free_pools
        if op == "searchsorted":
            a = cp.sort(rs.rand(case["m"], dtype=cp.float32))
            v = rs.rand(n, dtype=cp.float32)
            return (lambda: cp.searchsorted(a, v)), None, self.free_pools
        x = rs.rand(n, dtype=cp.float32).reshape(case.get("rows", 1), n // case.get("rows", 1))
        return (lambda: cp.argsort(x) if op == "argsort" else cp.sort(x)), None, self.free_pools

    def tiny(self, case):
        cp, np, n, iters = self.cp, self.np, case["n"], case["iters"]
        a = cp.arange(n, dtype=cp.float32)
        b = cp.arange(n, dtype=cp.float32)
        host = np.ones(n, dtype=np.float32)
        ops = {"a+b": lambda: a + b, "a*2+1": lambda: a * 2 + 1,
               "toGpu, x2, get": lambda: (cp.asarray(host) * 2).get()}
        op = ops[case["op"]]

        def batch():
            for _ in range(iters):
                op()

        return batch, None, None


FRAMEWORKS = (("torch", Torch), ("cupy", Cupy))


def load(cls):
    """(peer, None), or (None, reason) when the framework cannot run here."""
    try:
        return cls(), None
    except Exception as e:  # ImportError, no GPU, broken install: skip this framework only
        return None, f"{type(e).__name__}: {e}"


def describe(loaded):
    peer, reason = loaded
    return {"available": True, "version": peer.version} if peer is not None else {"available": False, "reason": reason}


def measure_cases(peer, request):
    results = {}
    for case in request["cases"]:
        try:
            once, note, cleanup = getattr(peer, case["kind"])(case)
            # `repeat` calls per timed batch, as run.js: seconds per call; events around one call.
            repeat = case.get("repeat", 1)

            def batch():
                for _ in range(repeat):
                    once()

            try:
                seconds = time_batches(batch if repeat > 1 else once, peer.sync, request["warmup"], request["reps"]) / repeat
                event_seconds = None
                if request.get("event_reps"):
                    event_seconds = time_events(once, peer.sync, peer.event_pair, request["event_reps"])
            finally:
                del batch, once  # drops the buffers the closures hold before cleanup frees pools
                if cleanup:
                    cleanup()
            results[case["id"]] = {"seconds": seconds}
            if event_seconds is not None:
                results[case["id"]]["eventSeconds"] = event_seconds
            if note:
                results[case["id"]]["note"] = note
        except Exception as e:
            results[case["id"]] = {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
    return results


def run_framework(loaded, request):
    """One framework's part of a report: its availability and, when available, its results."""
    peer = loaded[0]
    return {**describe(loaded), "results": measure_cases(peer, request) if peer is not None else {}}


def protocol_stdout():
    """A text stream on the original stdout, for the JSON lines alone. Python's sys.stdout and
    file descriptor 1 (where CUDA libraries and compilers may print) are sent to stderr."""
    sys.stdout.flush()
    out = os.fdopen(os.dup(1), "w")
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return out


def answer(out, obj):
    out.write(json.dumps(obj) + "\n")
    out.flush()


def free_pools(loaded):
    gc.collect()  # tensors kept alive by reference cycles would keep their blocks cached
    for peer, _ in loaded.values():
        if peer is not None:
            try:
                peer.free_pools()
            except Exception as e:
                print(f"peers.py: freeing {type(peer).__name__}'s memory failed: {e}", file=sys.stderr)


def serve():
    out = protocol_stdout()
    loaded = {name: load(cls) for name, cls in FRAMEWORKS}
    answer(out, {"ready": True, **{name: describe(fw) for name, fw in loaded.items()}})
    for line in iter(sys.stdin.readline, ""):
        if not line.strip():
            continue
        try:
            request = json.loads(line)
            report = {name: run_framework(loaded[name], request) for name, _ in FRAMEWORKS}
        except Exception as e:  # a malformed request: say so, keep serving
            report = {"error": f"{type(e).__name__}: {e}".splitlines()[0]}
        free_pools(loaded)  # before answering: the answer tells run.js the GPU is its own again
        answer(out, report)


def main():
    if sys.argv[1:] == ["--serve"]:
        serve()
        return
    request = json.loads(sys.argv[1])
    # Libraries may print while importing or compiling; keep stdout for the JSON answer alone.
    out = protocol_stdout()
    # Each framework is imported right before its cases run, and measured on its own.
    answer(out, {name: run_framework(load(cls), request) for name, cls in FRAMEWORKS})


if __name__ == "__main__":
    main()
