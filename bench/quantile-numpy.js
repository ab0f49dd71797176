// Our median/quantile/percentile (and nan forms) against NumPy's on the same data (docs/sorting.md, Quantiles):
//   node bench/quantile-numpy.js > /tmp/q.json && python3 bench/quantile-numpy.py /tmp/q.json
// on the GPU machine (NumPy comes with CuPy there). Prints the cases that differ beyond the dtype's arithmetic.
const cuda = require('..');
const { gpuarray: ga } = cuda;
const out = [];
let seed = 1;
const rnd = () => ((seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648);
const methods = ['linear', 'lower', 'higher', 'nearest', 'midpoint', 'interpolated_inverted_cdf', 'hazen', 'weibull', 'median_unbiased', 'normal_unbiased'];
for (const dt of ['float64', 'float32', 'int32', 'int64', 'uint8', 'float16']) {
  for (const n of [1, 2, 7, 10, 1000, 5001, 6000]) {
    const data = Array.from({ length: 3 * n }, () => (dt.startsWith('float') ? (rnd() - 0.5) * 200 : Math.floor(rnd() * 200)));
    if (dt.startsWith('float') && n > 5) data[n + 3] = NaN;
    const a = ga.toGpu(data, { dtype: 'float64' }).astype(dt).reshape([3, n]);
    const host = Array.from(a.astype('float64').get());
    const qs = [0, 0.013, 0.3, 0.5, 0.77, 1];
    const rec = (fn, q, opts, r) => out.push({ dt, n, data: host, fn, q, opts, res: Array.from(r.astype('float64').get()), rdt: r.dtype.name });
    for (const axis of [1, null]) {
      rec('median', null, { axis }, ga.median(a, { axis }));
      rec('nanmedian', null, { axis }, ga.nanmedian(a, { axis }));
      for (const method of methods) {
        rec('quantile', qs, { axis, method }, ga.quantile(a, qs, { axis, method }));
        rec('nanquantile', qs, { axis, method }, ga.nanquantile(a, qs, { axis, method }));
      }
      rec('percentile', [12.5, 99], { axis }, ga.percentile(a, [12.5, 99], { axis }));
    }
  }
}
process.stdout.write(JSON.stringify(out));
