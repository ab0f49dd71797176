# Summarizes bench/ncu/rows.sh's two CSVs for one row: the kernels after the marker, per side.
import csv, sys
def kernels(path, marker):
    rows = [r for r in csv.reader(open(path)) if len(r) > 10]
    if not rows: return None
    h = rows[0]; K, M, V, I = h.index("Kernel Name"), h.index("Metric Name"), h.index("Metric Value"), h.index("ID")
    by = {}
    for r in rows[1:]: by.setdefault(r[I], [r[K], {}])[1][r[M]] = float(r[V].replace(",", ""))
    ks = list(by.values())
    last = max([i for i, (n, _) in enumerate(ks) if marker in n], default=None)
    return None if last is None else ks[last + 1:]
op, ours, theirs = sys.argv[1], sys.argv[2], sys.argv[3]
for who, path, marker in (("nodecuda", ours, "nc_marker"), ("torch", theirs, "spin_kernel")):
    ks = kernels(path, marker)
    if ks is None: print(f"{op:14s} {who:8s} no kernels found (see {path[:-4]}.err)"); continue
    t = sum(m.get("gpu__time_duration.sum", 0) for _, m in ks) / 1e3
    b = sum(m.get("dram__bytes_read.sum", 0) + m.get("dram__bytes_write.sum", 0) for _, m in ks) / 1e6
    for n, m in ks:
        print(f"{op:14s} {who:8s} {m.get('gpu__time_duration.sum', 0) / 1e3:9.1f} us {(m.get('dram__bytes_read.sum', 0) + m.get('dram__bytes_write.sum', 0)) / 1e6:9.1f} MB "
              f"dram {m.get('dram__throughput.avg.pct_of_peak_sustained_elapsed', 0):5.1f}%  {n[:70]}")
    print(f"{op:14s} {who:8s} {t:9.1f} us total, {b:.1f} MB, {b / t if t else 0:.2f} TB/s (MB/us)")
