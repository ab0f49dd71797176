/**
 * Kernel source for the cuRAND device-API generators (lib/curandom.ts): one module per generator
 * kind with fill kernels per output, state initialisation and skip-ahead kernels. Compiled with
 * NVRTC against the toolkit's curand_kernel.h, so the numbers are cuRAND's own.
 */

/** The cuRAND device-API generators nodecuda wraps. */
export type CurandKind = 'xorwow' | 'mrg32k3a' | 'sobol32' | 'scrambledSobol32';

/** State type and size of each generator (static_assert-ed in the source). */
export const CURAND_STATES: Readonly<Record<CurandKind, { type: string; bytes: number; pseudo: boolean }>> = Object.freeze({
  xorwow: { type: 'curandStateXORWOW', bytes: 48, pseudo: true },
  mrg32k3a: { type: 'curandStateMRG32k3a', bytes: 48, pseudo: true },
  sobol32: { type: 'curandStateSobol32', bytes: 140, pseudo: false },
  scrambledSobol32: { type: 'curandStateScrambledSobol32', bytes: 140, pseudo: false },
});

/** A fill kernel: output element type, the cuRAND call, extra scalar parameters. */
interface FillInfo { out: string; call: string; params: string; pseudoOnly?: boolean }

/** Fill kernels by name (PyCUDA's gen_info, gen_log_info and gen_poisson_info). */
export const CURAND_FILLS: Readonly<Record<string, FillInfo>> = Object.freeze({
  uint: { out: 'unsigned int', call: 'curand(&st)', params: '' },
  float: { out: 'float', call: 'curand_uniform(&st)', params: '' },
  double: { out: 'double', call: 'curand_uniform_double(&st)', params: '' },
  normal_float: { out: 'float', call: 'curand_normal(&st)', params: '' },
  normal_double: { out: 'double', call: 'curand_normal_double(&st)', params: '' },
  normal_float2: { out: 'float2', call: 'curand_normal2(&st)', params: '', pseudoOnly: true },
  normal_double2: { out: 'double2', call: 'curand_normal2_double(&st)', params: '', pseudoOnly: true },
  log_float: { out: 'float', call: 'curand_log_normal(&st, mean, stddev)', params: 'const float mean, const float stddev, ' },
  log_double: { out: 'double', call: 'curand_log_normal_double(&st, mean, stddev)', params: 'const double mean, const double stddev, ' },
  log_float2: {
    out: 'float2', call: 'curand_log_normal2(&st, mean, stddev)', params: 'const float mean, const float stddev, ', pseudoOnly: true,
  },
  log_double2: {
    out: 'double2', call: 'curand_log_normal2_double(&st, mean, stddev)', params: 'const double mean, const double stddev, ',
    pseudoOnly: true,
  },
  poisson: { out: 'unsigned int', call: 'curand_poisson(&st, lambda)', params: 'const double lambda, ' },
});

/** Kernel name of `what` (a CURAND_FILLS key, 'init', 'skip_ahead', …) for `kind`. */
export function curandKernelName(kind: CurandKind, what: string): string {
  return `nc_curand_${kind}_${what}`;
}

/**
 * Fill kernels take (state, out, [params,] n, first): generator t of g = gridDim.x * blockDim.x
 * writes elements i ≡ t - first (mod g) in order, keeping its state in registers. With first = 0
 * this is PyCUDA's layout (element i from generator i mod g).
 */
function fillKernel(kind: CurandKind, name: string, f: FillInfo): string {
  const S = CURAND_STATES[kind].type;
  return `__global__ void ${curandKernelName(kind, name)}(${S} *s, ${f.out} *d, ${f.params}const long long n, const long long first)
{
  const long long t = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  const long long g = (long long)blockDim.x * gridDim.x;
  long long i = (t - first) % g;
  if (i < 0) i += g;
  if (i >= n) return;
  ${S} st = s[t];
  for (; i < n; i += g) d[i] = ${f.call};
  s[t] = st;
}
`;
}

function perGenerator(kind: CurandKind, name: string, params: string, body: string): string {
  const S = CURAND_STATES[kind].type;
  return `__global__ void ${curandKernelName(kind, name)}(${S} *s, ${params}const long long n)
{
  const long long id = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  if (id < n) ${body};
}
`;
}

/** The whole module of `kind`: its source and kernel names. */
export function curandSource(kind: CurandKind): { source: string; names: string[] } {
  const { type: S, bytes, pseudo } = CURAND_STATES[kind];
  const parts: string[] = [];
  const names: string[] = [];
  const add = (name: string, src: string) => { names.push(curandKernelName(kind, name)); parts.push(src); };
  for (const [name, f] of Object.entries(CURAND_FILLS)) {
    if (f.pseudoOnly && !pseudo) continue;
    add(name, fillKernel(kind, name, f));
  }
  const skip = pseudo ? 'unsigned long long' : 'unsigned int';
  if (pseudo) {
    // PyCUDA: curand_init(seed[id], id /* subsequence */, offset, &s[id]) with 32-bit seeds.
    add('init', perGenerator(kind, 'init', 'const unsigned int *seed, const unsigned long long offset, ',
      'curand_init(seed[id], id, offset, &s[id])'));
    add('init_seed', perGenerator(kind, 'init_seed', 'const unsigned long long seed, const unsigned long long offset, ',
      'curand_init(seed, id, offset, &s[id])'));
    const seqs = kind === 'mrg32k3a' ? ['sequence', 'subsequence'] : ['sequence'];
    for (const q of seqs) {
      add(`skip_ahead_${q}`, perGenerator(kind, `skip_ahead_${q}`, `const ${skip} skip, `, `skipahead_${q}(skip, &s[id])`));
      add(`skip_ahead_${q}_array`, perGenerator(kind, `skip_ahead_${q}_array`, `const ${skip} *skip, `,
        `skipahead_${q}(skip[id], &s[id])`));
    }
  } else if (kind === 'sobol32') {
    add('init', perGenerator(kind, 'init', 'curandDirectionVectors32_t *v, const unsigned int offset, ',
      'curand_init(v[id], offset, &s[id])'));
  } else {
    add('init', perGenerator(kind, 'init',
      'curandDirectionVectors32_t *v, const unsigned int *scramble, const unsigned int offset, ',
      'curand_init(v[id], scramble[id], offset, &s[id])'));
  }
  add('skip_ahead', perGenerator(kind, 'skip_ahead', `const ${skip} skip, `, 'skipahead(skip, &s[id])'));
  add('skip_ahead_array', perGenerator(kind, 'skip_ahead_array', `const ${skip} *skip, `, 'skipahead(skip[id], &s[id])'));
  const source = `#include <curand_kernel.h>
static_assert(sizeof(${S}) == ${bytes}, "nodecuda: unexpected size of ${S} in this curand_kernel.h");
extern "C" {
${parts.join('\n')}
}
`;
  return { source, names };
}
