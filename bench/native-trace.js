'use strict';
// Records the addon's native calls between start() and stop(): each as [name, start, end]
// (process.hrtime.bigint). Every function of `native` is wrapped once; classes stay as they are.
// Used by bench/hostline.js and bench/cold/first-use.js --trace.
module.exports = function traceNative(native) {
  let rec = null;
  for (const k of Object.keys(native)) {
    const f = native[k];
    if (typeof f !== 'function' || /^[A-Z]/.test(k)) continue;
    native[k] = function (...args) {
      if (!rec) return f.apply(this, args);
      const t = process.hrtime.bigint();
      try {
        return f.apply(this, args);
      } finally {
        rec.push([k, t, process.hrtime.bigint()]);
      }
    };
  }
  return {
    start() { rec = []; },
    stop() { const r = rec; rec = null; return r; },
  };
};
