/**
 * Quantiles from ordered rows (templates/quantile.ts): one launch reads the order statistics each
 * output needs, from sorted rows or from the ranks a selection picked (engine/select.ts runRanks),
 * and interpolates. Nothing is read back.
 */
import { DType } from '../base/dtype';
import { Stream } from '../cuda/driver';
import { usedOn } from '../cuda/memory';
import { ArgPacker } from '../cuda/args';
import { gridFor, sortKernel } from './sort';
import { quantileKernel } from './templates/quantile';

/** One quantile launch: `rows` rows of `len` ordered elements of `dt` at `input` (or R picked ranks a row). @internal */
export interface QuantileRun {
  input: bigint; dt: DType; rows: number; len: number;
  /** The output (rows × nq elements of outDt, q-major). */
  out: bigint; outDt: DType;
  /** nq quantiles in [0, 1]: a float64 array at `q`, or (q 0n, nq 1) the value q0. */
  q: bigint; q0: number; nq: number;
  method: number; alpha: number; beta: number; skipnan: boolean;
  /** The R ascending positions the rows hold (picked by selection), or 0n: the rows are sorted, len a row. */
  ranks: bigint; R: number;
  stream?: Stream | null; uses: readonly unknown[];
}

const P = new ArgPacker(128);

/** Launches the quantile kernel as `r` says. @internal */
export function runQuantile(r: QuantileRun): void {
  const n = r.rows * r.nq;
  if (n === 0) return;
  const fn = sortKernel(`quantile:${r.dt.name}:${r.outDt.name}`, () => quantileKernel(r.dt, r.outDt));
  const sh = usedOn(r.stream, r.uses);
  P.reset().ptr(r.input).ptr(r.q).f64(r.q0).ptr(r.out).i64(r.len).u64n(r.rows).u64n(n).i32(r.method).f64(r.alpha).f64(r.beta)
    .i32(r.skipnan ? 1 : 0).ptr(r.ranks).i32(r.R);
  P.launch(fn, sh, gridFor(n), 1, 1, 256, 1, 1, 0, true);
}
