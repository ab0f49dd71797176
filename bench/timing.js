'use strict';
// Wall time of single calls, for the bench scripts that time calls one by one (bench/run.js times
// batches): one untimed call first (kernels compiled, the memory pool warm), then `reps` calls,
// each followed by `sync()` inside the timed region; every result goes to `dispose`.

/** Milliseconds of each timed call of `fn`, ascending. */
function timeCalls(fn, { reps, sync, dispose }) {
  dispose(fn());
  sync();
  const ts = [];
  for (let i = 0; i < reps; i++) {
    const t = process.hrtime.bigint();
    const r = fn();
    sync();
    ts.push(Number(process.hrtime.bigint() - t) / 1e6);
    dispose(r);
  }
  return ts.sort((a, b) => a - b);
}

/** The median of ascending times (the upper one of an even count). */
const median = (sorted) => sorted[sorted.length >> 1];

/**
 * Brackets every kernel launch of the addon `native` (dist/cuda/native) with two CUDA events on
 * the launch's stream: `record(cfg, start, end, host)` after each, `host` the hrtime (bigint) just
 * before the first event. Returns the function that restores the plain launch.
 */
function bracketLaunches(native, record) {
  const launch = native.launch;
  native.launch = (fn, s, cfg, ...rest) => {
    const a = native.eventCreate(0);
    const b = native.eventCreate(0);
    const host = process.hrtime.bigint();
    native.eventRecord(a, s);
    launch(fn, s, cfg, ...rest);
    native.eventRecord(b, s);
    record(cfg, a, b, host);
  };
  return () => { native.launch = launch; };
}

module.exports = { timeCalls, median, bracketLaunches };
