/**
 * bfloat16 end to end without a GPU: every path the dtype flows through (host copies, operators
 * with every dtype, astype both ways, cumath, reductions, scans, random, user kernels of the three
 * kinds) generates kernels that NVRTC compiles and the CPU driver double "launches" (no values:
 * test/80-91 check those on a GPU), with no sanitizer report and the result dtypes expected.
 */
import { checkBuilt, expectClean, runFake } from './fake';

beforeAll(checkBuilt);

test('bfloat16 through the operators, math, reductions, scans, random and user kernels', () => {
  const r = runFake(`
    const nc = require(process.env.NODECUDA_DIST);
    const { gpuarray: ga, cumath, random, ElementwiseKernel, ReductionKernel, GenericScanKernel } = nc;
    const out = {}, errs = [];
    const t = (name, f) => {
      try {
        const v = f();
        out[name] = v && v.dtype ? v.dtype.name : Array.isArray(v) ? v.map((x) => x.dtype.name).join(',') : v;
      } catch (e) { errs.push(name + ': ' + e.code + ' ' + String(e.message).split('\\n')[0]); }
    };
    const a = ga.toGpu([1, 2, 3, 4], { dtype: 'bfloat16' });
    const m = ga.zeros([8, 16], 'bfloat16');
    t('bits', () => a.get().constructor.name);
    t('item', () => ga.toGpu([0.1], { dtype: 'bfloat16' }).item());
    t('fromF32', () => ga.toGpu(new Float32Array([1.5]), { dtype: 'bfloat16' }));
    for (const op of ['add', 'sub', 'mul', 'div', 'pow', 'mod', 'floorDiv', 'lt', 'maximum']) t(op, () => a[op](a));
    t('scalar', () => a.add(2.5));
    for (const d of ['bool', 'int8', 'int64', 'uint64', 'float16', 'float32', 'float64', 'complex64']) {
      t('with_' + d, () => a.add(ga.zeros([4], d)));
      t('to_' + d, () => a.astype(d));
      t('from_' + d, () => ga.zeros([4], d).astype('bfloat16'));
    }
    t('transposed', () => m.T.copy());
    t('full', () => ga.full([3], 0.1, 'bfloat16'));
    t('arange', () => ga.arange(0, 10, 1, 'bfloat16'));
    t('linspace', () => ga.linspace(0, 1, 9, { dtype: 'bfloat16' }));
    t('concat', () => ga.concatenate([a, a]));
    for (const f of ['sin', 'exp', 'log', 'round', 'isnan']) t('cumath_' + f, () => cumath[f](a));
    t('fastMath', () => cumath.exp(a, { fastMath: true }));
    for (const f of ['sum', 'mean', 'var', 'max', 'argmax', 'prod']) t('red_' + f, () => ga[f](m, { axis: 1 }));
    t('cumsum', () => ga.cumsum(a));
    t('rand', () => random.rand([64], 'bfloat16'));
    t('normal', () => new random.Generator({ seed: 1 }).normal([64], { dtype: 'bfloat16' }));
    t('ekernel', () => { new ElementwiseKernel('__nv_bfloat16 *x, nv_bfloat16 s', 'x[i] = x[i] * s', 'bfk')(a, 2); return 'ok'; });
    t('generic', () => ElementwiseKernel.generic('T x', 'T y', 'y = x + (T)1', 'gbf')(a));
    t('reductionKernel', () => new ReductionKernel('bfloat16', { neutral: 0, reduceExpr: 'a + b' })(a));
    t('reductionArgs', () => new ReductionKernel('float32', { neutral: 0, reduceExpr: 'a + b', mapExpr: 'x[i] * s',
      arguments: 'const __nv_bfloat16 *x, __nv_bfloat16 s' })(a, 3));
    t('scanKernel', () => { new GenericScanKernel({ dtype: 'bfloat16', arguments: 'const __nv_bfloat16 *x, __nv_bfloat16 *y',
      inputExpr: 'x[i]', scanExpr: 'a + b', neutral: 0, outputStatement: 'y[i] = item;' })(a, a.copy()); return 'ok'; });
    nc.driver.Context.synchronize();
    console.log(JSON.stringify({ out, errs }));
  `);
  expectClean(r);
  const { out, errs } = r.out as { out: Record<string, unknown>; errs: string[] };
  expect(errs).toEqual([]);
  expect(out).toMatchObject({
    bits: 'Uint16Array', item: 0.10009765625, fromF32: 'bfloat16', add: 'bfloat16', lt: 'bool', scalar: 'bfloat16',
    with_bool: 'bfloat16', with_int64: 'bfloat16', with_uint64: 'bfloat16', with_float16: 'float32', with_float32: 'float32',
    with_float64: 'float64', with_complex64: 'complex64', to_float16: 'float16', from_float64: 'bfloat16', cumath_sin: 'bfloat16',
    cumath_isnan: 'bool', red_sum: 'bfloat16', red_mean: 'bfloat16', red_argmax: 'int64', cumsum: 'bfloat16', rand: 'bfloat16',
    normal: 'bfloat16', ekernel: 'ok', generic: 'bfloat16', reductionKernel: 'bfloat16', reductionArgs: 'float32', scanKernel: 'ok',
  });
});
