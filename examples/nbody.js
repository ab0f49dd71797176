'use strict';
// An all-pairs gravitational n-body simulation: a SourceModule with a shared-memory tiled force
// kernel (float4 positions with the mass in w), leapfrog kick/drift kernels and an energy kernel
// (double), driven from JavaScript with GPUArrays as the state. First a small system is checked
// against the same simulation on the CPU (float64): positions, and the total energy before and
// after. Then a large system runs a few steps with per-step timings (driver.Event), showing
// progress. Run with `node examples/nbody.js [bodies] [steps]` (default 16384 bodies, 10 steps).
const cuda = require('nodecuda');
const { driver, gpuarray, SourceModule } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const BLOCK = 256;
const mod = new SourceModule(`
// acc[i] = sum_j m_j (p_j - p_i) / (|p_j - p_i|^2 + eps2)^(3/2); the j = i term is 0.
__global__ void accelerations(const float4 *pos, float4 *acc, int n, float eps2)
{
  extern __shared__ float4 tile[];
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  float4 p = i < n ? pos[i] : make_float4(0.0f, 0.0f, 0.0f, 0.0f);
  float ax = 0.0f, ay = 0.0f, az = 0.0f;
  for (int base = 0; base < n; base += blockDim.x) {
    int j = base + threadIdx.x;
    tile[threadIdx.x] = j < n ? pos[j] : make_float4(0.0f, 0.0f, 0.0f, 0.0f); // mass 0: no force
    __syncthreads();
    int count = min((int)blockDim.x, n - base);
    for (int k = 0; k < count; k++) {
      float4 q = tile[k];
      float dx = q.x - p.x, dy = q.y - p.y, dz = q.z - p.z;
      float inv = rsqrtf(dx * dx + dy * dy + dz * dz + eps2);
      float s = q.w * inv * inv * inv;
      ax += s * dx;
      ay += s * dy;
      az += s * dz;
    }
    __syncthreads();
  }
  if (i < n) acc[i] = make_float4(ax, ay, az, 0.0f);
}

__global__ void kick(float4 *vel, const float4 *acc, int n, float h)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 v = vel[i], a = acc[i];
  vel[i] = make_float4(v.x + h * a.x, v.y + h * a.y, v.z + h * a.z, 0.0f);
}

__global__ void drift(float4 *pos, const float4 *vel, int n, float dt)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i];
  pos[i] = make_float4(p.x + dt * v.x, p.y + dt * v.y, p.z + dt * v.z, p.w);
}

// e[i] = m_i (|v_i|^2 / 2 - sum_{j != i} m_j / sqrt(r_ij^2 + eps2) / 2), in double: sum(e) is the energy.
__global__ void energy(double *e, const float4 *pos, const float4 *vel, int n, float eps2)
{
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  float4 p = pos[i], v = vel[i];
  double pot = 0.0;
  for (int j = 0; j < n; j++) {
    if (j == i) continue;
    float4 q = pos[j];
    double dx = (double)q.x - p.x, dy = (double)q.y - p.y, dz = (double)q.z - p.z;
    pot -= q.w / sqrt(dx * dx + dy * dy + dz * dz + (double)eps2);
  }
  double v2 = (double)v.x * v.x + (double)v.y * v.y + (double)v.z * v.z;
  e[i] = p.w * (0.5 * v2 + 0.5 * pot);
}
`);
const accelerations = mod.getFunction('accelerations');
const kick = mod.getFunction('kick');
const drift = mod.getFunction('drift');
const energyKernel = mod.getFunction('energy');

const EPS2 = Math.fround(0.05 * 0.05); // softening, as the kernels see it (float)
const DT = 1e-3;

/** A reproducible system: n bodies uniform in the unit ball, total mass 1, random velocities. */
function initialState(n, seed) {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0; // mulberry32
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
  const pos = new Float32Array(4 * n);
  const vel = new Float32Array(4 * n);
  for (let i = 0; i < n; i++) {
    let x, y, z;
    do {
      x = 2 * uniform() - 1; y = 2 * uniform() - 1; z = 2 * uniform() - 1;
    } while (x * x + y * y + z * z > 1);
    pos.set([x, y, z, 1 / n], 4 * i);
    vel.set([0.5 * (2 * uniform() - 1), 0.5 * (2 * uniform() - 1), 0.5 * (2 * uniform() - 1), 0], 4 * i);
  }
  return { pos, vel };
}

/** The simulation on the GPU; state in GPUArrays of shape [n, 4] (float32). */
class GpuSystem {
  constructor({ pos, vel }) {
    this.n = pos.length / 4;
    this.pos = gpuarray.toGpu(pos, { shape: [this.n, 4] });
    this.vel = gpuarray.toGpu(vel, { shape: [this.n, 4] });
    this.acc = gpuarray.zeros([this.n, 4], 'float32');
    this.e = gpuarray.empty([this.n], 'float64');
    this.launch = { block: [BLOCK], grid: [Math.ceil(this.n / BLOCK)] };
    this.computeAccelerations();
  }
  computeAccelerations() {
    accelerations(this.pos, this.acc, this.n, EPS2, { ...this.launch, shared: BLOCK * 16 });
  }
  /** One kick-drift-kick leapfrog step. */
  step() {
    kick(this.vel, this.acc, this.n, DT / 2, this.launch);
    drift(this.pos, this.vel, this.n, DT, this.launch);
    this.computeAccelerations();
    kick(this.vel, this.acc, this.n, DT / 2, this.launch);
  }
  energy() {
    energyKernel(this.e, this.pos, this.vel, this.n, EPS2, this.launch);
    return this.e.sum().item();
  }
  dispose() {
    for (const a of [this.pos, this.vel, this.acc, this.e]) a.dispose();
  }
}

/** The same simulation on the CPU in float64 (the float32 inputs converted exactly). */
class CpuSystem {
  constructor({ pos, vel }) {
    this.n = pos.length / 4;
    this.pos = Float64Array.from(pos);
    this.vel = Float64Array.from(vel);
    this.acc = new Float64Array(4 * this.n);
    this.computeAccelerations();
  }
  computeAccelerations() {
    const { n, pos, acc } = this;
    for (let i = 0; i < n; i++) {
      let ax = 0, ay = 0, az = 0;
      for (let j = 0; j < n; j++) {
        const dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1], dz = pos[4 * j + 2] - pos[4 * i + 2];
        const inv = 1 / Math.sqrt(dx * dx + dy * dy + dz * dz + EPS2);
        const s = pos[4 * j + 3] * inv * inv * inv;
        ax += s * dx; ay += s * dy; az += s * dz;
      }
      acc[4 * i] = ax; acc[4 * i + 1] = ay; acc[4 * i + 2] = az;
    }
  }
  step() {
    const { n, pos, vel, acc } = this;
    const kickAll = () => { for (let k = 0; k < 4 * n; k++) if (k % 4 !== 3) vel[k] += (DT / 2) * acc[k]; };
    kickAll();
    for (let k = 0; k < 4 * n; k++) if (k % 4 !== 3) pos[k] += DT * vel[k];
    this.computeAccelerations();
    kickAll();
  }
  energy() {
    const { n, pos, vel } = this;
    let e = 0;
    for (let i = 0; i < n; i++) {
      let pot = 0;
      for (let j = 0; j < n; j++) {
        if (j === i) continue;
        const dx = pos[4 * j] - pos[4 * i], dy = pos[4 * j + 1] - pos[4 * i + 1], dz = pos[4 * j + 2] - pos[4 * i + 2];
        pot -= pos[4 * j + 3] / Math.sqrt(dx * dx + dy * dy + dz * dz + EPS2);
      }
      const v2 = vel[4 * i] * vel[4 * i] + vel[4 * i + 1] * vel[4 * i + 1] + vel[4 * i + 2] * vel[4 * i + 2];
      e += pos[4 * i + 3] * (0.5 * v2 + 0.5 * pot);
    }
    return e;
  }
}

function fail(message) {
  console.error(`MISMATCH: ${message}`);
  process.exit(1);
}
const rel = (a, b) => Math.abs(a - b) / Math.abs(b);

// --- 1. Small system: GPU (float32 state) against CPU (float64) -------------------------------
{
  const n = 500; // not a multiple of the block size: the last tile is partial
  const steps = 20;
  const init = initialState(n, 1);
  const gpu = new GpuSystem(init);
  const cpu = new CpuSystem(init);
  const e0Gpu = gpu.energy();
  const e0Cpu = cpu.energy();
  for (let s = 0; s < steps; s++) {
    gpu.step();
    cpu.step();
  }
  const e1Gpu = gpu.energy();
  const e1Cpu = cpu.energy();
  const p = gpu.pos.get();
  let maxDiff = 0;
  for (let k = 0; k < p.length; k++) maxDiff = Math.max(maxDiff, Math.abs(p[k] - cpu.pos[k]));
  console.log(`n = ${n}, ${steps} steps of dt = ${DT}:`);
  console.log(`  energy before: GPU ${e0Gpu.toFixed(9)}, CPU ${e0Cpu.toFixed(9)} (relative difference ${rel(e0Gpu, e0Cpu).toExponential(2)})`);
  console.log(`  energy after:  GPU ${e1Gpu.toFixed(9)}, CPU ${e1Cpu.toFixed(9)} (relative difference ${rel(e1Gpu, e1Cpu).toExponential(2)})`);
  console.log(`  energy drift:  GPU ${rel(e1Gpu, e0Gpu).toExponential(2)}, CPU ${rel(e1Cpu, e0Cpu).toExponential(2)}`);
  console.log(`  max |position difference| ${maxDiff.toExponential(2)}`);
  // The same float32 positions: the energies differ only by rounding in the kernel (double).
  if (!(rel(e0Gpu, e0Cpu) < 1e-9)) fail('initial energy differs from the CPU');
  // float32 arithmetic over 20 steps: differences of order 1e-6; 1e-4 leaves a wide margin.
  if (!(rel(e1Gpu, e1Cpu) < 1e-4)) fail('final energy differs from the CPU');
  if (!(maxDiff < 1e-4)) fail(`positions differ from the CPU by ${maxDiff}`);
  if (!(rel(e1Gpu, e0Gpu) < 1e-3)) fail('energy is not conserved on the GPU');
  console.log('small system against the CPU: OK');
  gpu.dispose();
}

// --- 2. Large system: timings -------------------------------------------------------------------
{
  const n = Number(process.argv[2] ?? 16384);
  const steps = Number(process.argv[3] ?? 10);
  if (!Number.isInteger(n) || n < 2 || !Number.isInteger(steps) || steps < 1) {
    console.error('usage: node examples/nbody.js [bodies >= 2] [steps >= 1]');
    process.exit(2);
  }
  const gpu = new GpuSystem(initialState(n, 2));
  const e0 = gpu.energy();
  console.log(`n = ${n}: ${steps} steps (${(n * n / 1e6).toFixed(0)} M interactions each), energy ${e0.toFixed(9)}`);
  const events = [new driver.Event().record()];
  let total = 0;
  for (let s = 1; s <= steps; s++) {
    gpu.step();
    const ev = new driver.Event().record();
    ev.synchronize(); // to print progress; the GPU would otherwise run ahead of the loop
    const ms = ev.timeSince(events[events.length - 1]);
    events.push(ev);
    total += ms;
    console.log(`  step ${s}/${steps}: ${ms.toFixed(3)} ms, ${(n * n / ms / 1e6).toFixed(1)} G interactions/s`);
  }
  const e1 = gpu.energy();
  const drift = rel(e1, e0);
  console.log(`  average ${(total / steps).toFixed(3)} ms/step; energy ${e1.toFixed(9)}, drift ${drift.toExponential(2)}`);
  if (!(drift < 1e-3)) fail(`energy drift ${drift} over ${steps} steps`);
  console.log('large system energy conserved: OK');
  gpu.dispose();
}
console.log('All checks passed.');
