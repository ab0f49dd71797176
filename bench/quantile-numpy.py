#!/usr/bin/env python3
"""Compares bench/quantile-numpy.js's output (our results) with NumPy on the same data.

  node bench/quantile-numpy.js > /tmp/q.json && python3 bench/quantile-numpy.py /tmp/q.json

Prints: records and how many differ beyond the dtype's arithmetic (float32 1e-6, otherwise 1e-13
relative; NaN must match NaN), the first mismatches, the largest relative
difference per (dtype, function, method) that is not exact, and each result dtype that differs
from NumPy's (NumPy gives float64 for a q list on float32/float16 arrays; nodecuda keeps the
array's dtype).
float16 is checked against the same function on the data in float64, within half a unit in the
last place of float16 (nodecuda interpolates in float32 and rounds once; NumPy rounds b - a to
float16 first, so NumPy's own float16 results can be further from it: "numpy float16" lines).
"""
import json
import sys
import warnings

import numpy as np

txt = open(sys.argv[1]).read()
recs = json.loads(txt[txt.index("[{"):])  # the runner may print a line before the JSON
bad = 0
worst = {}
dtypes = set()
for r in recs:
    a = np.array([np.nan if v is None else v for v in r["data"]], dtype=np.float64).astype(r["dt"]).reshape(3, r["n"])
    kw = {"axis": r["opts"].get("axis")}
    if "method" in r["opts"]:
        kw["method"] = r["opts"]["method"]
    fn = getattr(np, r["fn"])

    def ref(x):
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return np.asarray(fn(x, **kw) if r["q"] is None else fn(x, np.array(r["q"]), **kw))
    want = ref(a)
    half = r["dt"] == "float16"
    got = np.array([np.nan if v is None else v for v in r["res"]], dtype=np.float64).reshape(want.shape)
    w = want.astype(np.float64)
    if half:  # the exact interpolation of the float16 data; NumPy's float16 result against it too
        w = ref(a.astype(np.float64)).astype(np.float64).reshape(want.shape)
        sn = (want.astype(np.float64) == w) | (np.isnan(want.astype(np.float64)) & np.isnan(w))
        if not sn.all():
            dn = np.nanmax(np.abs(want.astype(np.float64) - w)[~sn] / np.maximum(np.abs(w[~sn]), 1e-300))
            k = ("numpy float16", r["fn"], r["opts"].get("method", ""))
            worst[k] = max(worst.get(k, 0), dn)
    same = (got == w) | (np.isnan(got) & np.isnan(w))
    key = (r["dt"], r["fn"], r["opts"].get("method", ""))
    if str(want.dtype) != r["rdt"]:
        dtypes.add(key + (str(want.dtype), r["rdt"]))
    if not same.all():
        d = np.nanmax(np.abs(got - w)[~same] / np.maximum(np.abs(w[~same]), 1e-300))
        worst[key] = max(worst.get(key, 0), d)
        tol = 2.0**-11 + 1e-6 if half else 1e-6 if r["dt"] == "float32" else 1e-13
        if np.isnan(d) or d > tol:
            bad += 1
            if bad <= 15:
                print("MISMATCH", key, "n", r["n"], "axis", kw["axis"], "got", got.ravel()[:6], "want", w.ravel()[:6])
print("records", len(recs), "beyond the arithmetic", bad)
for k, v in sorted(worst.items()):
    print("inexact", k, "max relative difference %.3g" % v)
for k in sorted(dtypes):
    print("dtype differs", k[:3], "numpy", k[3], "ours", k[4])
