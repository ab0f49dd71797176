'use strict';
// A short tour of GPUArray: creating arrays, arithmetic with broadcasting, views, comparisons
// with where(), and tidy(). Run with `node examples/gpuarray.js`. Guide: docs/gpuarray.md.
const { inspect } = require('node:util');
const cuda = require('nodecuda');
const { gpuarray, slice } = cuda;

if (!cuda.isAvailable()) {
  console.log('nodecuda: no CUDA driver or GPU found on this machine; nothing to run here.');
  process.exit(0);
}

const show = (label, x) => console.log(`${label.padEnd(32)} ${inspect(x)}`);

// --- Creating arrays ---------------------------------------------------------------------------
const a = gpuarray.toGpu([[1, 2, 3], [4, 5, 6]], { dtype: 'float32' }); // nested: shape [2, 3]
const row = gpuarray.toGpu(new Float32Array([10, 20, 30]));              // keeps its dtype
const col = gpuarray.toGpu([[100], [200]], { dtype: 'float32' });        // shape [2, 1]
show('a', a);
show('arange(0, 5, 1, "int32")', gpuarray.arange(0, 5, 1, 'int32'));
show('linspace(0, 1, 5)', gpuarray.linspace(0, 1, 5));

// --- Arithmetic: broadcasting, scalars, promotion ------------------------------------------------
show('a.add(row)   [2,3] + [3]', a.add(row));
show('a.add(col)   [2,3] + [2,1]', a.add(col));
show('a.mul(2).sub(1)', a.mul(2).sub(1));
show('a.rdiv(1)    1 / a', a.rdiv(1));
const i8 = gpuarray.toGpu(new Int8Array([120, -5, 7]));
show('i8.add(10)   (int8, wraps)', i8.add(10));
show('i8.add(0.5)  (float64)', i8.add(0.5));
show('i8.floorDiv(-2)  (floors)', i8.floorDiv(-2));

// --- Views: indexing, transpose and reshape share the array's memory -------------------------
// NumPy spelling in the labels; slice(start, stop, step) is positional, like Array#slice.
show("a.index(1)           a[1]", a.index(1));
show("a.index(':', '::-1') a[:, ::-1]", a.index(':', '::-1'));
show('a.index(slice(1), 0) a[1:, 0]', a.index(slice(1), 0));
show('a.T', a.T);
show("a.index('...', null) a[..., None]", a.index('...', null).shape);
const b = a.copy();
b.index(0).fill(0); // writes through the view into b
show('b after b[0] = 0', b);

// --- Comparisons and where ---------------------------------------------------------------------
const x = gpuarray.linspace(-2, 2, 5, { dtype: 'float32' });
show('x', x);
show('x.gt(0)', x.gt(0));
show('where(x > 0, x, 0)', gpuarray.where(x.gt(0), x, 0));
show('maximum(x, -1)', gpuarray.maximum(x, -1));
x.mul(-1, { out: x }); // in place
show('x after x *= -1', x);

// --- tidy: temporaries are freed, the result is kept -------------------------------------------
const before = cuda.memory().liveArrays;
const y = cuda.tidy(() => x.mul(x).add(1).div(2)); // two temporaries, one result
const kept = cuda.memory().liveArrays - before;
console.log(`${'tidy(() => (x*x + 1) / 2)'.padEnd(32)} ${kept} new array kept`);
show('y', y);
console.log(`${'y.toArray()'.padEnd(32)} ${JSON.stringify(y.toArray())}`);
console.log(`${'y.index(0).item()'.padEnd(32)} ${y.index(0).item()}`);
const yValues = Array.from(y.get());
y.dispose();

// --- Checks against values computed in JavaScript ------------------------------------------------
function expectArray(label, got, want) {
  const g = JSON.stringify(got);
  const w = JSON.stringify(want);
  if (g !== w) {
    console.error(`MISMATCH in ${label}: got ${g}, expected ${w}`);
    process.exit(1);
  }
  console.log(`${label.padEnd(32)} OK`);
}
expectArray('a.add(row)', a.add(row).toArray(), [[11, 22, 33], [14, 25, 36]]);
expectArray('a.add(col)', a.add(col).toArray(), [[101, 102, 103], [204, 205, 206]]);
expectArray("a.index(':', '::-1')", a.index(':', '::-1').toArray(), [[3, 2, 1], [6, 5, 4]]);
expectArray('a.T', a.T.toArray(), [[1, 4], [2, 5], [3, 6]]);
expectArray('i8.add(10) wraps', Array.from(i8.add(10).get()), [-126, 5, 17]);
expectArray('i8.floorDiv(-2)', Array.from(i8.floorDiv(-2).get()), [-60, 2, -4]);
expectArray('b after b[0] = 0', b.toArray(), [[0, 0, 0], [4, 5, 6]]);
// x was linspace(-2, 2, 5) negated in place; y = (x*x + 1) / 2.
expectArray('x after x *= -1', Array.from(x.get()), [2, 1, -0, -1, -2]);
expectArray('y = (x*x + 1) / 2', yValues, [2.5, 1, 0.5, 1, 2.5]);
console.log('All checks passed.');
