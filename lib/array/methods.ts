/**
 * The implementations behind GPUArray's operator, copy, reduction and scan methods, registered by
 * the modules that define them (operators.ts, reductions.ts, scan.ts, linalg/index.ts). Why a registry and not an
 * import: those modules need GPUArray as a value (GPUArray.allocate, instanceof), and GPUArray's
 * methods need them, so importing them from gpuarray.ts would make an import cycle. With this
 * module the value imports run one way (operators/reductions/scan → gpuarray → methods, and
 * operators/reductions/scan → methods); the methods are declared in the GPUArray class body and
 * call through `impl`. A method whose module has not been loaded throws ERR_INVALID_STATE
 * (lib/index.ts loads them all).
 */
import type { GPUArray } from './gpuarray';
import type { OpOptions } from './operators';
import type { ArgOptions, DotOptions, ReduceOptions, VarOptions } from './reductions';
import type { ScanOptions } from './scan';
import type { MatmulOptions } from '../linalg/matmul';
import type { ArgsortOptions, SortOptions } from './sorting';
import type { PartitionOptions, SearchsortedOptions, TopkOptions, TopkResult } from './selection';
import type { NonzeroOptions } from './nonzero';
import type { RepeatOptions } from './shapes';
import type { ClipBound } from './clip';
import type { DiagonalOptions, TraceOptions } from './matrices';
import type { Complex } from '../base/dtype';
import type { DType } from '../base/dtype';
import type { Stream } from '../cuda/driver';
import { typeError } from '../base/errors';

/** The functions GPUArray's methods call. @internal */
export interface ArrayMethodImpls {
  // operators.ts
  apply(name: string, operands: unknown[], opts?: OpOptions): GPUArray;
  fill(a: GPUArray, value: unknown, stream?: Stream | null): GPUArray;
  copyOf(src: GPUArray, stream?: Stream | null, dt?: DType): GPUArray;
  assign(dst: GPUArray, src: GPUArray, stream?: Stream | null): void;
  // reductions.ts
  sum(a: GPUArray, opts?: ReduceOptions): GPUArray;
  prod(a: GPUArray, opts?: ReduceOptions): GPUArray;
  min(a: GPUArray, opts?: ReduceOptions): GPUArray;
  max(a: GPUArray, opts?: ReduceOptions): GPUArray;
  mean(a: GPUArray, opts?: ReduceOptions): GPUArray;
  var(a: GPUArray, opts?: VarOptions): GPUArray;
  std(a: GPUArray, opts?: VarOptions): GPUArray;
  any(a: GPUArray, opts?: ReduceOptions): GPUArray;
  all(a: GPUArray, opts?: ReduceOptions): GPUArray;
  argmin(a: GPUArray, opts?: ArgOptions): GPUArray;
  argmax(a: GPUArray, opts?: ArgOptions): GPUArray;
  dot(a: GPUArray, b: GPUArray, opts?: DotOptions): GPUArray;
  // scan.ts
  cumsum(a: GPUArray, opts?: ScanOptions): GPUArray;
  cumprod(a: GPUArray, opts?: ScanOptions): GPUArray;
  // sorting.ts
  sort(a: GPUArray, opts?: Omit<SortOptions, 'out'>): GPUArray;
  argsort(a: GPUArray, opts?: ArgsortOptions): GPUArray;
  // selection.ts
  searchsorted(a: GPUArray, v: GPUArray | number | bigint | boolean | Complex, opts?: SearchsortedOptions): GPUArray;
  topk(a: GPUArray, k: number, opts?: TopkOptions): TopkResult;
  partition(a: GPUArray, kth: number | readonly number[], opts?: PartitionOptions): GPUArray;
  argpartition(a: GPUArray, kth: number | readonly number[], opts?: PartitionOptions): GPUArray;
  // nonzero.ts
  nonzero(a: GPUArray, opts?: NonzeroOptions): GPUArray[];
  // matrices.ts
  diagonal(a: GPUArray, opts?: DiagonalOptions): GPUArray;
  trace(a: GPUArray, opts?: TraceOptions): GPUArray;
  // shapes.ts
  swapaxes(a: GPUArray, axis1: number, axis2: number): GPUArray;
  repeat(a: GPUArray, repeats: number | readonly number[], opts?: RepeatOptions): GPUArray;
  clip(a: GPUArray, min?: ClipBound, max?: ClipBound, opts?: OpOptions): GPUArray;
  // linalg/index.ts
  matmul(a: GPUArray, b: GPUArray, opts?: MatmulOptions): GPUArray;
  // complex.ts
  real(a: GPUArray): GPUArray;
  imag(a: GPUArray): GPUArray;
  conj(a: GPUArray, opts?: OpOptions): GPUArray;
}

function notLoaded(name: string): () => never {
  return () => {
    throw typeError('ERR_INVALID_STATE', `GPUArray.${name}(): its module is not loaded (import nodecuda, not a single lib/ file)`);
  };
}

/** The registered implementations (each a thrower until its module registers it). @internal */
export const impl: ArrayMethodImpls = {
  apply: notLoaded('apply'), fill: notLoaded('fill'), copyOf: notLoaded('copy'), assign: notLoaded('set'),
  sum: notLoaded('sum'), prod: notLoaded('prod'), min: notLoaded('min'), max: notLoaded('max'),
  mean: notLoaded('mean'), var: notLoaded('var'), std: notLoaded('std'), any: notLoaded('any'),
  all: notLoaded('all'), argmin: notLoaded('argmin'), argmax: notLoaded('argmax'), dot: notLoaded('dot'),
  cumsum: notLoaded('cumsum'), cumprod: notLoaded('cumprod'), matmul: notLoaded('matmul'),
  sort: notLoaded('sort'), argsort: notLoaded('argsort'), searchsorted: notLoaded('searchsorted'),
  topk: notLoaded('topk'), partition: notLoaded('partition'), argpartition: notLoaded('argpartition'),
  swapaxes: notLoaded('swapaxes'), repeat: notLoaded('repeat'), clip: notLoaded('clip'),
  nonzero: notLoaded('nonzero'), diagonal: notLoaded('diagonal'), trace: notLoaded('trace'),
  real: notLoaded('real'), imag: notLoaded('imag'), conj: notLoaded('conj'),
};

/**
 * Registers implementations (called once by operators.ts, reductions.ts, scan.ts, sorting.ts,
 * selection.ts, nonzero.ts, shapes.ts, matrices.ts, complex.ts and linalg/index.ts at load). @internal
 */
export function registerArrayMethods(part: Partial<ArrayMethodImpls>): void {
  Object.assign(impl, part);
}
