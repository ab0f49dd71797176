# PyTorch's side of bench/hostline.js: host time of one call after torch.cuda.synchronize() (the
# device idle) and back to back, median of 15, for the same sums and unique.
#   python3 bench/hostline.py
import time
import torch

x = torch.rand(2**28, device='cuda')
small = torch.arange(1024, device='cuda', dtype=torch.float32)
wide = (torch.rand(2**26, device='cuda', dtype=torch.float64) * 2**30).to(torch.int32)


def probe(label, f, warm=50, reps=15):
    for _ in range(warm):
        f()
    ts = []
    for _ in range(reps):
        torch.cuda.synchronize()
        t0 = time.perf_counter_ns()
        f()
        ts.append((time.perf_counter_ns() - t0) / 1e3)
    torch.cuda.synchronize()
    t0 = time.perf_counter_ns()
    for _ in range(reps):
        f()
    back = (time.perf_counter_ns() - t0) / 1e3 / reps
    torch.cuda.synchronize()
    ts.sort()
    print(f'torch {label}: after a sync {ts[len(ts) // 2]:.1f} µs (median; min {ts[0]:.1f}), back to back {back:.1f} µs a call')


probe('sum of 1024 float32', lambda: small.sum())
probe('sum of 2^28 float32', lambda: x.sum())
probe('unique of 2^26 int32 in [0, 2^30)', lambda: torch.unique(wide), 3, 7)


def events(label, f, nbytes, warm=50, reps=20):
    """CUDA events around one call, the device idle before it (idle1), and around reps calls back
    to back (busy1, per call): bench/single-call.js's two views, for PyTorch."""
    for _ in range(warm):
        f()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    idle = []
    for _ in range(reps):
        torch.cuda.synchronize()
        s.record()
        f()
        e.record()
        e.synchronize()
        idle.append(s.elapsed_time(e))
    torch.cuda.synchronize()
    s.record()
    for _ in range(reps):
        f()
    e.record()
    e.synchronize()
    busy = s.elapsed_time(e) / reps
    idle.sort()
    i1 = idle[len(idle) // 2]
    print(f'torch {label}: idle1 {i1 * 1e3:.1f} µs ({nbytes / i1 / 1e6:.0f} GB/s)  busy1 {busy * 1e3:.1f} µs ({nbytes / busy / 1e6:.0f} GB/s)')


y = torch.ones_like(x)
events('sum(x)', lambda: x.sum(), 2**28 * 4)
events('max(x)', lambda: x.max(), 2**28 * 4)
events('dot(x, y)', lambda: torch.dot(x, y), 2**28 * 8)
