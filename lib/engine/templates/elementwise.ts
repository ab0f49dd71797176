/**
 * The elementwise kernel family: one template, two variants.
 * - contiguous: every array operand is C-contiguous with the output's shape and 16-byte aligned;
 *   each thread moves E elements per operand with vector loads/stores.
 * - strided: dims collapsed first (shape.ts), shape/strides passed as a parameter struct; each
 *   thread handles E consecutive elements along the innermost dim, with vector accesses for
 *   operands whose inner stride is 1 and broadcast loads for stride 0.
 * Indexing is 32-bit when every offset fits, 64-bit otherwise.
 */
import { DType } from '../../base/dtype';
import { PREAMBLE } from './preamble';

/** How an operand's inner dimension is walked in the strided variant. */
export type InnerMode = 'unit' | 'zero' | 'any';

/** One input: an array (stored as `storage`) or a scalar passed by value (as its compute type). */
export interface InputSpec {
  /** An array's stored dtype (the kernel reads `dtype` values); for a scalar, its compute dtype. */
  dtype: DType;
  /** Compute dtype the value is converted to before `body` sees it as x<i>. */
  compute: DType;
  /** A scalar passed by value as a kernel parameter (true) or an array read per element (false). */
  scalar: boolean;
}

/** One output, written from r<i> (compute type of `compute`). */
export interface OutputSpec {
  /** The output array's dtype (r<i> is converted to it when stored). */
  dtype: DType;
  /** Compute dtype of r<i>, the value `body` writes. */
  compute: DType;
}

/**
 * What an elementwise kernel computes: its inputs, outputs and C body, from which the engine
 * generates and caches one kernel per variant (GenericElementwiseKernel's `specFor` returns one).
 */
export interface ElementwiseSpec {
  /** Kernel name prefix; the variant's suffix is appended (e.g. `_c4`: contiguous, 4 elements a thread). */
  name: string;
  /** The inputs, x0, x1, … in `body`. */
  inputs: InputSpec[];
  /** The outputs, r0, r1, … in `body`. */
  outputs: OutputSpec[];
  /** C statements reading x0.., writing r0.. (compute types); `i` is the linear index. */
  body: string;
  /** Extra device code placed after the preamble. */
  preamble?: string;
  /** Extra NVRTC options (e.g. ElementwiseKernel's `options`). */
  options?: readonly string[];
  /**
   * 16-byte vectors per thread in the contiguous variant (default 1, NODECUDA_EW_VECTORS):
   * 2 for long float64 math, whose latency one vector of two doubles does not hide.
   */
  vectors?: number;
}

export interface Variant {
  kind: 'contiguous' | 'strided' | 'tiled';
  /** Elements per thread. */
  e: number;
  /** 64-bit indexing. */
  wide: boolean;
  /** Strided only: collapsed ndim and inner mode per operand (outputs first, then array inputs). */
  ndim?: number;
  inner?: InnerMode[];
  /** Tiled only (2-d): which array inputs are read through a shared-memory tile (transposed). */
  tiled?: boolean[];
}

function decls(spec: ElementwiseSpec): string {
  const out = spec.outputs.map((o, i) => `${o.dtype.storageC} *__restrict__ o${i}`);
  const inp = spec.inputs.map((x, i) => x.scalar ? `const ${x.compute.computeC} s${i}`
    : `const ${x.dtype.storageC} *__restrict__ i${i}`);
  return [...out, ...inp].join(', ');
}

function computeBody(spec: ElementwiseSpec, load: (i: number) => string, store: (i: number, v: string) => string): string {
  const lines: string[] = [];
  spec.inputs.forEach((x, i) => {
    const ct = x.compute.computeC;
    lines.push(x.scalar ? `const ${ct} x${i} = s${i};` : `const ${ct} x${i} = NC_TO(${ct}, nc_load(${load(i)}));`);
  });
  spec.outputs.forEach((o, i) => lines.push(`${o.compute.computeC} r${i};`));
  lines.push(`{ ${spec.body} }`);
  spec.outputs.forEach((o, i) => lines.push(store(i, `NC_STORE(${o.dtype.storageC}, r${i})`)));
  return lines.join(' ');
}

/** Kernel name for a spec+variant (the caller hashes it into the cache key). */
export function kernelName(spec: ElementwiseSpec, v: Variant): string {
  const kind = v.kind === 'contiguous' ? 'c' : v.kind === 'tiled' ? `t${v.tiled!.map(Number).join('')}` : `s${v.ndim}`;
  return `${spec.name}_${kind}${v.e}${v.wide ? 'w' : ''}`;
}

function contiguous(spec: ElementwiseSpec, v: Variant, name: string): string {
  const idx = v.wide ? 'unsigned long long' : 'unsigned int';
  const E = v.e;
  const vecLoads: string[] = [];
  const vecStores: string[] = [];
  spec.inputs.forEach((x, i) => {
    if (!x.scalar) vecLoads.push(`const nc_vec<${x.dtype.storageC}, ${E}> v${i} = *reinterpret_cast<const nc_vec<${x.dtype.storageC}, ${E}>*>(i${i} + base);`);
  });
  spec.outputs.forEach((o, i) => {
    vecLoads.push(`nc_vec<${o.dtype.storageC}, ${E}> w${i};`);
    vecStores.push(`*reinterpret_cast<nc_vec<${o.dtype.storageC}, ${E}>*>(o${i} + base) = w${i};`);
  });
  const vecBody = computeBody(spec, (i) => `v${i}.v[k]`, (i, val) => `w${i}.v[k] = ${val};`);
  const tailBody = computeBody(spec, (i) => `i${i}[i]`, (i, val) => `o${i}[i] = ${val};`);
  return `
extern "C" __global__ void ${name}(${decls(spec)}, const ${idx} n) {
  const ${idx} base = ((${idx})blockIdx.x * blockDim.x + threadIdx.x) * ${E};
  if (base + ${E} <= n) {
    ${vecLoads.join('\n    ')}
    #pragma unroll
    for (int k = 0; k < ${E}; k++) { const ${idx} i = base + k; (void)i; ${vecBody} }
    ${vecStores.join('\n    ')}
  } else {
    for (${idx} i = base; i < n; i++) { ${tailBody} }
  }
}`;
}

function strided(spec: ElementwiseSpec, v: Variant, name: string): string {
  const nd = v.ndim!;
  const E = v.e;
  const idx = v.wide ? 'long long' : 'int';
  const uidx = v.wide ? 'unsigned long long' : 'unsigned int';
  const arrays: Array<{ ptr: string; type: string; out: boolean; n: number }> = [
    ...spec.outputs.map((o, i) => ({ ptr: `o${i}`, type: o.dtype.storageC, out: true, n: i })),
    ...spec.inputs.map((x, i) => ({ ptr: `i${i}`, type: x.dtype.storageC, out: false, n: i, scalar: x.scalar }))
      .filter((x) => !x.scalar),
  ];
  const nops = arrays.length;
  const inner = v.inner!;
  // Offsets of each operand for the thread's first element.
  const decomp = [
    `${uidx} rem = first;`,
    ...arrays.map((_, j) => `${idx} off${j} = 0;`),
    `#pragma unroll`,
    `for (int d = ${nd - 1}; d >= 0; d--) { const ${uidx} c = rem % p.shape[d]; rem /= p.shape[d];`,
    ...arrays.map((_, j) => `  off${j} += (${idx})c * p.strides[${j}][d];`),
    `}`,
  ].join('\n    ');
  const pre: string[] = [];
  const post: string[] = [];
  const loadOf: Record<number, string> = {};
  arrays.forEach((a, j) => {
    const mode = inner[j];
    const vt = `nc_vec<${a.type}, ${E}>`;
    if (a.out) {
      if (mode === 'unit' && E > 1) {
        pre.push(`${vt} w${a.n};`);
        post.push(`*reinterpret_cast<${vt}*>(${a.ptr} + off${j}) = w${a.n};`);
      }
      return;
    }
    if (mode === 'unit' && E > 1) {
      pre.push(`const ${vt} v${a.n} = *reinterpret_cast<const ${vt}*>(${a.ptr} + off${j});`);
      loadOf[a.n] = `v${a.n}.v[k]`;
    } else if (mode === 'zero') {
      pre.push(`const ${a.type} v${a.n} = ${a.ptr}[off${j}];`);
      loadOf[a.n] = `v${a.n}`;
    } else {
      loadOf[a.n] = `${a.ptr}[off${j} + (${idx})k * p.strides[${j}][${nd - 1}]]`;
    }
  });
  const outIndex = new Map(arrays.map((a, j) => [a.out ? `o${a.n}` : `i${a.n}`, j]));
  const body = computeBody(spec, (i) => loadOf[i], (i, val) => {
    const j = outIndex.get(`o${i}`)!;
    return inner[j] === 'unit' && E > 1 ? `w${i}.v[k] = ${val};`
      : `o${i}[off${j} + (${idx})k * p.strides[${j}][${nd - 1}]] = ${val};`;
  });
  return `
struct ${name}_p { ${uidx} shape[${nd}]; ${idx} strides[${nops}][${nd}]; };
extern "C" __global__ void ${name}(${decls(spec)}, const ${name}_p p, const ${uidx} n) {
  const ${uidx} first = ((${uidx})blockIdx.x * blockDim.x + threadIdx.x) * ${E};
  if (first >= n) return;
  ${decomp}
  ${pre.join('\n  ')}
  #pragma unroll
  for (int k = 0; k < ${E}; k++) { const ${uidx} i = first + k; (void)i; ${body} }
  ${post.join('\n  ')}
}`;
}

/**
 * 2-d operands some of which are transposed (contiguous along dim 0): 32x32 output tiles, with the
 * transposed inputs staged through shared memory so both their reads and the output writes are
 * coalesced. Block (32, 8); grid (ceil(cols/32), ceil(rows/32)).
 */
function tiled(spec: ElementwiseSpec, v: Variant, name: string): string {
  const idx = v.wide ? 'long long' : 'int';
  const uidx = v.wide ? 'unsigned long long' : 'unsigned int';
  const arrays = [
    ...spec.outputs.map((o, i) => ({ ptr: `o${i}`, type: o.dtype.storageC, out: true, n: i })),
    ...spec.inputs.map((x, i) => ({ ptr: `i${i}`, type: x.dtype.storageC, out: false, n: i, scalar: x.scalar }))
      .filter((x) => !x.scalar),
  ];
  const at = (j: number, r: string, c: string) => `(${idx})(${r}) * p.strides[${j}][0] + (${idx})(${c}) * p.strides[${j}][1]`;
  const inputsJ = arrays.map((a, j) => ({ ...a, j })).filter((a) => !a.out);
  const staged = inputsJ.filter((_, k) => v.tiled![k]);
  const tiles = staged.map((a) => `__shared__ ${a.type} t${a.n}[32][33];`);
  const loads = staged.map((a) => `if (r < p.shape[0] && c < p.shape[1]) t${a.n}[threadIdx.x][k] = ${a.ptr}[${at(a.j, 'r', 'c')}];`);
  const loadOf: Record<number, string> = {};
  inputsJ.forEach((a, k) => {
    loadOf[a.n] = v.tiled![k] ? `t${a.n}[k][threadIdx.x]` : `${a.ptr}[${at(a.j, 'r', 'c')}]`;
  });
  const outJ = new Map(arrays.filter((a) => a.out).map((a, j) => [a.n, j]));
  const body = computeBody(spec, (i) => loadOf[i], (i, val) => `o${i}[${at(outJ.get(i)!, 'r', 'c')}] = ${val};`);
  return `
struct ${name}_p { ${uidx} shape[2]; ${idx} strides[${arrays.length}][2]; };
extern "C" __global__ void ${name}(${decls(spec)}, const ${name}_p p, const ${uidx} n) {
  ${tiles.join('\n  ')}
  const ${uidx} r0 = (${uidx})blockIdx.y * 32, c0 = (${uidx})blockIdx.x * 32;
  for (int k = threadIdx.y; k < 32; k += 8) {
    const ${uidx} r = r0 + threadIdx.x, c = c0 + k;
    ${loads.join('\n    ')}
  }
  __syncthreads();
  for (int k = threadIdx.y; k < 32; k += 8) {
    const ${uidx} r = r0 + k, c = c0 + threadIdx.x;
    if (r < p.shape[0] && c < p.shape[1]) { const ${uidx} i = r * p.shape[1] + c; (void)i; ${body} }
  }
}`;
}

/** The kernel alone (no preamble), for one spec and variant. */
export function elementwiseKernel(spec: ElementwiseSpec, v: Variant): { source: string; name: string } {
  const name = kernelName(spec, v);
  const source = v.kind === 'contiguous' ? contiguous(spec, v, name)
    : v.kind === 'tiled' ? tiled(spec, v, name) : strided(spec, v, name);
  return { source, name };
}

/** Full CUDA source of one kernel (compiled with noExternC: names are declared extern "C"). */
export function elementwiseSource(spec: ElementwiseSpec, v: Variant): { source: string; name: string } {
  const { source, name } = elementwiseKernel(spec, v);
  return { source: `${PREAMBLE}\n${spec.preamble ?? ''}\n${source}\n`, name };
}
