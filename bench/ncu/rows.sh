#!/bin/bash
# Nsight Compute side by side: for each bench row (bench/ncu/ops.js, ops.py) the kernels of one
# call of nodecuda and of PyTorch after their warm-ups, with duration (ncu locks clocks at base, so
# compare the two columns, not with npm run bench), DRAM bytes and DRAM throughput (% of peak).
#   bash bench/ncu/rows.sh ['add u8' 'log f64' ...]     (the GPU machine; NCU=path to ncu)
# Writes a table to stdout; the raw CSVs go to $NCU_OUT (default /tmp/ncu-rows) as <row>-<who>.csv.
# PyTorch's copy is a cudaMemcpyAsync (no kernel): its row shows none.
cd "$(dirname "$0")/../.."
NCU=${NCU:-$(command -v ncu || echo /usr/local/cuda/bin/ncu)}
OUTDIR=${NCU_OUT:-/tmp/ncu-rows}
mkdir -p "$OUTDIR"
METRICS=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed
if [ $# -eq 0 ]; then
  set -- 'copy f32' 'add f32' 'add u8' 'add f16' 'add f64' 'axpy f32' 'log f64' 'sin f32' 'normal f32' 'sum f32' 'sum axis0 f32' 'sum axis1 f32'
fi
for op in "$@"; do
  f=${op// /_}
  OP="$op" "$NCU" --target-processes all --metrics $METRICS --csv node bench/ncu/ops.js > "$OUTDIR/$f-nodecuda.csv" 2> "$OUTDIR/$f-nodecuda.err"
  OP="$op" "$NCU" --target-processes all --metrics $METRICS --csv python3 bench/ncu/ops.py > "$OUTDIR/$f-torch.csv" 2> "$OUTDIR/$f-torch.err"
  python3 bench/ncu/table.py "$op" "$OUTDIR/$f-nodecuda.csv" "$OUTDIR/$f-torch.csv"
done
