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
