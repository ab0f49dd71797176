# PyTorch's side of bench/ncu/ops.js: setup, two warm-ups, a marker (torch.cuda._sleep: a spin
# kernel), then the profiled call. OP=<name>.
import os, torch
N, SIDE = 2**28, 16384
def ramp(n, dt): return ((torch.arange(0, n, device="cuda", dtype=torch.float32) + 1) / n).to(dt)
def out(dt): return torch.empty(N, device="cuda", dtype=dt)
def mk(op):
    if op == "copy f32": x, z = ramp(N, torch.float32), out(torch.float32); return lambda: z.copy_(x)
    if op.startswith("add "):
        dt = {"f32": torch.float32, "u8": torch.uint8, "f16": torch.float16, "f64": torch.float64}[op[4:]]
        x, z = ramp(N, dt), out(dt); return lambda: torch.add(x, x, out=z)
    if op == "axpy f32":
        x, y, z = ramp(N, torch.float32), ramp(N, torch.float32), out(torch.float32); return lambda: torch.add(y, x, alpha=2, out=z)
    if op == "log f64": x, z = ramp(N, torch.float64), out(torch.float64); return lambda: torch.log(x, out=z)
    if op == "sin f32": x, z = ramp(N, torch.float32), out(torch.float32); return lambda: torch.sin(x, out=z)
    if op == "normal f32":
        z, g = out(torch.float32), torch.Generator(device="cuda").manual_seed(1); return lambda: torch.randn(N, out=z, generator=g)
    if op == "sum f32": x = ramp(N, torch.float32); return lambda: x.sum()
    if op == "sum axis0 f32": x = ramp(N, torch.float32).reshape(SIDE, SIDE); return lambda: x.sum(0)
    if op == "sum axis1 f32": x = ramp(N, torch.float32).reshape(SIDE, SIDE); return lambda: x.sum(1)
    raise SystemExit("unknown OP " + op)
run = mk(os.environ["OP"])
run(); run(); torch.cuda.synchronize()
torch.cuda._sleep(1)
run(); torch.cuda.synchronize()
